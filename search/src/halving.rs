//! Gumbel AlphaZero's root: Gumbel-top-k sampling of the moves considered, then sequential halving of the
//! simulation budget between them.

use othello_core::Move;
use rand::Rng;

use crate::evaluator::Evaluator;
use crate::tree::{SearchJob, State, Tree, ROOT};

/// Gumbel AlphaZero at the root (Danihelka et al., 2022): Gumbel-top-k sampling of `considered` root moves, then
/// sequential halving of the simulation budget between them, keeping the half with the best
/// `g + logit + sigma(q)` after each round. Driven as a sequence of [`SearchJob`]s (one per round, so the
/// rounds of many games batch together); below the root the search is PUCT or Gumbel MuZero's
/// ([`MctsConfig::interior`](crate::MctsConfig::interior)). No temperature is needed: the Gumbel noise is the exploration. A player draws
/// none ([`GumbelSearch::noiseless`], as Gumbel MuZero evaluates perfect-information games): its candidates are
/// the moves of highest prior and its choice a function of the position. After the last round,
/// [`GumbelSearch::choice`] is the move and [`Tree::gumbel_policy_target`] the policy target.
#[derive(Clone, Debug)]
pub struct GumbelSearch {
    sims: u32,
    considered: usize,
    /// Draws Gumbel noise (self-play's exploration); without it every draw is 0.
    noise: bool,
    /// Root children and their Gumbel draws; empty until the search starts.
    children: Vec<u32>,
    gumbel: Vec<f32>,
    /// Indices into `children` still in the running, best first after each round.
    candidates: Vec<usize>,
    rounds: u32,
    round: u32,
    /// Simulations left for the candidates.
    budget: u32,
    /// Simulations spent expanding the root before the candidates were drawn (0 on a reused tree).
    spent_on_root: u32,
}

impl GumbelSearch {
    /// Self-play's search: the Gumbel draws explore.
    pub fn new(sims: u32, considered: usize) -> GumbelSearch {
        GumbelSearch {
            sims: sims.max(1),
            considered: considered.max(1),
            noise: true,
            children: Vec::new(),
            gumbel: Vec::new(),
            candidates: Vec::new(),
            rounds: 0,
            round: 0,
            budget: 0,
            spent_on_root: 0,
        }
    }

    /// A player's search: no Gumbel draws.
    pub fn noiseless(sims: u32, considered: usize) -> GumbelSearch {
        GumbelSearch { noise: false, ..GumbelSearch::new(sims, considered) }
    }

    /// The evaluations to run next on `tree` (call again once they are done), or `None` when the choice is made.
    pub fn next_job(&mut self, tree: &mut Tree) -> Option<SearchJob> {
        let root = &tree.nodes[ROOT as usize];
        match root.state {
            State::Expanded => {}
            State::Terminal => return None,
            State::Leaf | State::Pending => {
                self.spent_on_root = 1;
                return Some(tree.root_job(1));
            }
        }
        if self.children.is_empty() {
            let first = root.first_child;
            self.children = (first..first + root.children).collect();
            let noise = self.noise;
            self.gumbel = self
                .children
                .iter()
                .map(|_| {
                    if !noise {
                        return 0.0;
                    }
                    let u: f32 = tree.rng.random::<f32>().clamp(1e-12, 1.0 - 1e-7);
                    -(-u.ln()).ln()
                })
                .collect();
            self.candidates = (0..self.children.len()).collect();
            self.rank(tree, false);
            self.budget = self.sims.saturating_sub(self.spent_on_root);
            // At most one candidate per simulation left, so that the first round visits every one of them.
            let affordable = (self.budget as usize).max(1);
            self.candidates.truncate(self.considered.min(self.children.len()).min(affordable));
            self.rounds = (self.candidates.len() as f32).log2().ceil().max(1.0) as u32;
        } else {
            if self.candidates.len() > 1 {
                self.rank(tree, true);
                self.candidates.truncate(self.candidates.len().div_ceil(2));
            }
            self.round += 1;
            if self.round == self.rounds {
                return None;
            }
        }
        // An equal share of the budget per round, split between the candidates; the last round takes the rest.
        // Never more than the budget left: a round it cannot pay for one visit per candidate ends the search.
        let n = self.candidates.len() as u32;
        let per = (self.sims / (self.rounds * n)).max(1);
        let spend = if self.round + 1 == self.rounds { per.max(self.budget / n) } else { per }.min(self.budget / n);
        if spend == 0 {
            return None;
        }
        self.budget -= spend * n;
        let targets =
            self.candidates.iter().map(|&c| (self.children[c], tree.nodes[self.children[c] as usize].visits + spend));
        Some(SearchJob { targets: targets.collect() })
    }

    /// Sorts the candidates by `g + logit`, plus `sigma(q)` once they have been searched.
    fn rank(&mut self, tree: &Tree, with_q: bool) {
        // `children` are the root's in order: index i is the root's i-th child.
        let completed = with_q.then(|| tree.root_completed());
        let score = |i: usize| {
            let q = completed.as_ref().map_or(0.0, |(q, sigma)| sigma.of(q[i]));
            self.gumbel[i] + tree.nodes[self.children[i] as usize].logit() + q
        };
        let mut scored: Vec<(f32, usize)> = self.candidates.iter().map(|&i| (score(i), i)).collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0));
        self.candidates = scored.into_iter().map(|s| s.1).collect();
    }

    /// The chosen move, once [`GumbelSearch::next_job`] has returned `None` (`None` if the root has no moves): the
    /// best candidate, unless a proven move is worth at least as much (`Tree::proven_or`).
    pub fn choice(&self, tree: &Tree) -> Option<Move> {
        self.candidates.first().map(|&c| tree.proven_or(self.children[c]))
    }
}

impl Tree {
    /// A player's Gumbel AlphaZero root choice on this tree alone, without Gumbel noise (see [`GumbelSearch`]).
    pub fn gumbel_search(
        &mut self,
        evaluator: &mut dyn Evaluator,
        sims: u32,
        batch: usize,
        considered: usize,
    ) -> Option<Move> {
        self.gumbel_search_until(evaluator, sims, batch, considered, &mut |_| false)
    }

    /// [`Tree::gumbel_search`] cut short once `stop`, asked after each evaluator call, says so (a player's clock):
    /// the choice is then the best candidate of the round under way, ranked on what it has searched.
    pub fn gumbel_search_until(
        &mut self,
        evaluator: &mut dyn Evaluator,
        sims: u32,
        batch: usize,
        considered: usize,
        stop: &mut dyn FnMut(&Tree) -> bool,
    ) -> Option<Move> {
        let mut gumbel = GumbelSearch::noiseless(sims, considered);
        while let Some(job) = gumbel.next_job(self) {
            if !self.run_job_until(&job, evaluator, batch, stop) {
                if gumbel.candidates.len() > 1 {
                    gumbel.rank(self, true);
                }
                break;
            }
        }
        gumbel.choice(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evaluator::{RolloutEvaluator, UniformEvaluator};
    use crate::testing::{quiet, random_endgames, rng, single_winning_moves, ExactEvaluator};
    use othello_core::solve::Solver;
    use othello_core::{Game, Rules};

    /// With 8 simulations, Gumbel's sequential halving finds the only winning move far more often than PUCT
    /// (measured: 14 vs 9 of 20).
    #[test]
    fn gumbel_root_selection_finds_winning_moves_with_few_simulations() {
        let cases = single_winning_moves(20, 7);
        let (mut gumbel, mut puct) = (0, 0);
        for (i, (pos, winner)) in cases.iter().enumerate() {
            let mut tree = Tree::new(Rules::othello(), *pos, quiet(), rng(i as u64));
            let chosen = tree.gumbel_search(&mut RolloutEvaluator::new(i as u64, 4), 8, 4, 8);
            gumbel += (chosen == Some(*winner)) as usize;
            let target = tree.gumbel_policy_target();
            assert!((target.iter().sum::<f32>() - 1.0).abs() < 1e-4);
            let mut tree = Tree::new(Rules::othello(), *pos, quiet(), rng(i as u64));
            tree.search(&mut RolloutEvaluator::new(i as u64, 4), 8, 4);
            puct += (tree.choose_move(0.0) == Some(*winner)) as usize;
        }
        eprintln!("8 simulations: gumbel {gumbel}/20, puct {puct}/20");
        assert!(gumbel >= puct + 3, "gumbel {gumbel}, puct {puct}");
    }

    /// Cut short by its clock, a search stops after the evaluator call that saw the time up and still chooses a legal
    /// move, at PUCT's root as at Gumbel's.
    #[test]
    fn a_search_cut_short_stops_at_once_and_still_chooses() {
        let rules = Rules::othello();
        let game = Game::from_transcript(rules, "f5d6c3d3c4f4").unwrap();
        let othello_core::Status::Moves(legal) = game.status() else { panic!("moves") };
        let legal: Vec<Move> = legal.map(Move::Play).collect();
        let mut calls = 0;
        let mut tree = Tree::new(rules, *game.position(), quiet(), rng(3));
        let done = tree.search_until(&mut UniformEvaluator, 1000, 4, &mut |_| {
            calls += 1;
            calls == 3
        });
        assert!(!done && calls == 3 && tree.root_visits() <= 12, "{} visits", tree.root_visits());
        assert!(legal.contains(&tree.choose_move(0.0).unwrap()));
        // Gumbel: the root's expansion, then five calls of the first round.
        calls = 0;
        let mut tree = Tree::new(rules, *game.position(), quiet(), rng(3));
        let chosen = tree.gumbel_search_until(&mut UniformEvaluator, 1000, 4, 16, &mut |_| {
            calls += 1;
            calls == 5
        });
        assert!(calls == 5 && tree.root_visits() <= 1 + 5 * 4, "{} visits", tree.root_visits());
        assert!(legal.contains(&chosen.unwrap()));
        // Never stopped, it is the search it always was.
        let mut a = Tree::new(rules, *game.position(), quiet(), rng(3));
        let mut b = Tree::new(rules, *game.position(), quiet(), rng(3));
        let never = a.gumbel_search_until(&mut UniformEvaluator, 64, 4, 8, &mut |_| false);
        assert_eq!(never, b.gumbel_search(&mut UniformEvaluator, 64, 4, 8));
        assert_eq!(a.visits(), b.visits());
    }

    /// Gumbel's sequential halving never spends more than its simulations, whatever the number of considered
    /// moves (the root's own expansion included), and spends most of them.
    #[test]
    fn gumbel_keeps_to_its_simulation_budget() {
        let rules = Rules::othello();
        let game = Game::from_transcript(rules, "f5d6c3d3c4f4").unwrap();
        for (sims, considered) in [(1, 8), (2, 8), (4, 16), (8, 16), (16, 8), (32, 32), (50, 7), (200, 16)] {
            let mut tree = Tree::new(rules, *game.position(), quiet(), rng(3));
            assert!(tree.gumbel_search(&mut UniformEvaluator, sims, 4, considered).is_some());
            let spent = tree.root_visits();
            assert!(spent <= sims, "{sims} simulations, {considered} considered: {spent} spent");
            assert!(2 * spent >= sims, "{sims} simulations, {considered} considered: only {spent} spent");
        }
    }

    /// A player's Gumbel search draws no noise: where several moves keep the result, valued exactly, its move is a
    /// function of the position (the same whatever the tree's seed) and keeps the result, where self-play's search,
    /// whose draws explore, varies with the seed.
    #[test]
    fn the_players_gumbel_search_draws_no_noise() {
        let cases = random_endgames(23, 20, 8, |pos, s| {
            let keeping: Vec<Move> =
                s.move_scores.iter().filter(|m| m.1.signum() == s.score.signum()).map(|m| m.0).collect();
            (keeping.len() >= 2).then_some((*pos, keeping))
        });
        let mut varied = 0;
        for (i, (pos, keeping)) in cases.iter().enumerate() {
            let choose = |seed: u64, mut gumbel: GumbelSearch| {
                let mut tree = Tree::new(Rules::othello(), *pos, quiet(), rng(seed));
                let mut exact = ExactEvaluator(Solver::new());
                while let Some(job) = gumbel.next_job(&mut tree) {
                    tree.run_job_until(&job, &mut exact, 4, &mut |_| false);
                }
                gumbel.choice(&tree).unwrap()
            };
            let seeds = [i as u64, 100 + i as u64, 200 + i as u64, 300 + i as u64];
            let played: Vec<Move> = seeds.iter().map(|&s| choose(s, GumbelSearch::noiseless(32, 8))).collect();
            assert!(played.iter().all(|m| *m == played[0]), "position {i}: {played:?}");
            assert!(keeping.contains(&played[0]), "position {i}: {:?} loses the result", played[0]);
            let explored: Vec<Move> = seeds.iter().map(|&s| choose(s, GumbelSearch::new(32, 8))).collect();
            varied += explored.iter().any(|m| *m != explored[0]) as u32;
        }
        assert!(varied >= 5, "self-play's draws changed the move in only {varied} of 20 positions");
    }
}
