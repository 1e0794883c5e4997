//! Pure Monte-Carlo tree search: UCT over the game tree, each new leaf valued by one uniformly random game to the
//! end. No knowledge beyond the rules, which makes it the fixed yardstick between the hand-written and the learnt
//! players.

use othello_core::playout::below;
use othello_core::{Game, Move, Position, Rules, Status};
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;

use crate::agent::{Agent, AgentError};

/// The exploration constant of UCT, sqrt(2) for results in [0, 1].
const EXPLORATION: f64 = std::f64::consts::SQRT_2;

/// `mcts:sims=N`: N simulations per move from a fresh tree, the most visited move played.
pub struct RolloutMctsAgent {
    sims: u32,
    rng: Pcg64Mcg,
}

struct Node {
    position: Position,
    /// The move that led here from the parent.
    mv: Move,
    children: Vec<usize>,
    untried: Vec<Move>,
    visits: u32,
    /// Results (1 win, 0.5 draw) for the side that played `mv`, summed.
    wins: f64,
}

impl RolloutMctsAgent {
    pub fn new(sims: u32, seed: u64) -> RolloutMctsAgent {
        RolloutMctsAgent { sims: sims.max(1), rng: Pcg64Mcg::seed_from_u64(seed) }
    }

    /// One random game from `pos` to the end: 1, 0.5 or 0 for `side`.
    fn rollout(&mut self, rules: &Rules, pos: &Position, side: othello_core::Color) -> f64 {
        let mut p = *pos;
        loop {
            match rules.status(&p) {
                Status::Over => return (rules.outcome(&p).margin_for(side).signum() as f64 + 1.0) / 2.0,
                Status::MustPass => p = p.pass(),
                Status::Moves(m) => {
                    p = rules.play_legal(&p, m.nth(below(&mut self.rng, m.count())).expect("n < count"))
                }
            }
        }
    }
}

fn moves_of(rules: &Rules, pos: &Position) -> Vec<Move> {
    match rules.status(pos) {
        Status::Over => vec![],
        Status::MustPass => vec![Move::Pass],
        Status::Moves(m) => m.map(Move::Play).collect(),
    }
}

impl Agent for RolloutMctsAgent {
    fn name(&self) -> String {
        format!("mcts:sims={}", self.sims)
    }

    fn select_move(&mut self, game: &Game) -> Result<Move, AgentError> {
        let rules = game.rules;
        let root_position = *game.position();
        let untried = moves_of(&rules, &root_position);
        match untried.len() {
            0 => return Err(AgentError::GameOver),
            1 => return Ok(untried[0]),
            _ => {}
        }
        let mut tree =
            vec![Node { position: root_position, mv: Move::Pass, children: vec![], untried, visits: 0, wins: 0.0 }];
        for _ in 0..self.sims {
            // Selection: down by UCT while the node is fully expanded.
            let mut path = vec![0];
            let mut node = 0;
            while tree[node].untried.is_empty() && !tree[node].children.is_empty() {
                let log_n = (tree[node].visits.max(1) as f64).ln();
                node = *tree[node]
                    .children
                    .iter()
                    .max_by(|&&a, &&b| {
                        let uct = |c: usize| {
                            let n = tree[c].visits as f64;
                            tree[c].wins / n + EXPLORATION * (log_n / n).sqrt()
                        };
                        uct(a).total_cmp(&uct(b))
                    })
                    .expect("a child");
                path.push(node);
            }
            // Expansion: one untried move, chosen at random.
            if !tree[node].untried.is_empty() {
                let k = below(&mut self.rng, tree[node].untried.len() as u32) as usize;
                let mv = tree[node].untried.swap_remove(k);
                let position = rules.play(&tree[node].position, mv).expect("an untried move is legal");
                let untried = moves_of(&rules, &position);
                tree.push(Node { position, mv, children: vec![], untried, visits: 0, wins: 0.0 });
                let child = tree.len() - 1;
                tree[node].children.push(child);
                path.push(child);
                node = child;
            }
            // Simulation from the leaf, then the result backed up for each node's mover.
            let leaf = tree[node].position;
            let leaf_mover = !leaf.side;
            let result = self.rollout(&rules, &leaf, leaf_mover);
            for &n in &path {
                let mover = !tree[n].position.side;
                tree[n].visits += 1;
                tree[n].wins += if mover == leaf_mover { result } else { 1.0 - result };
            }
        }
        let best = tree[0].children.iter().max_by_key(|&&c| tree[c].visits).expect("the root was expanded");
        Ok(tree[*best].mv)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::tests::{match_score, play};
    use crate::baselines::RandomAgent;

    /// Search buys strength: 300 simulations beat random play, and beat 20 simulations.
    #[test]
    fn more_simulations_win_more() {
        let rules = Rules::othello().with_size(6).unwrap();
        let mcts = |sims: u32| move |seed: u64| -> Box<dyn Agent> { Box::new(RolloutMctsAgent::new(sims, seed)) };
        let vs_random = match_score(rules, &mut mcts(300), &mut |s| Box::new(RandomAgent::new(s)), 20);
        let vs_fewer = match_score(rules, &mut mcts(300), &mut mcts(20), 20);
        assert!(vs_random >= 0.9 && vs_fewer >= 0.7, "{vs_random} {vs_fewer}");
    }

    #[test]
    fn the_same_seed_gives_the_same_game() {
        let rules = Rules::othello().with_size(6).unwrap();
        let game = || play(rules, &mut RolloutMctsAgent::new(50, 3), &mut RandomAgent::new(4));
        assert_eq!(game(), game());
    }
}
