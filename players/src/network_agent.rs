//! Trained networks as players: the raw policy (`policy:model=M`) and the network with MCTS
//! (`net:model=M,sims=N[,gumbel][,score=W]`), as self-play searches but without root noise, reusing the tree
//! between moves.

use std::path::Path;

use othello_core::{Game, Move, Position, Rules, Status, Symmetry};
use othello_net::{load_checkpoint, resolve_checkpoint, DeviceChoice};
use othello_search::NetworkEvaluator;
use othello_search::{PlayerSearch, Tree};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

use crate::agent::{Agent, AgentError};

/// The network's evaluator for a spec's `model=` on `device`, each position seen as it is (no symmetry), so that
/// a player's moves are a function of the position; and the rules of the run that trained it (None for a network
/// no trainer wrote).
fn evaluator(model: &str, device: DeviceChoice, agent: &str) -> Result<(NetworkEvaluator, Option<Rules>), AgentError> {
    let fail = |message: String| AgentError::Failed { agent: agent.to_string(), message };
    let path = resolve_checkpoint(Path::new(model)).map_err(|e| fail(e.to_string()))?;
    let device = device.device().map_err(|e| fail(e.to_string()))?;
    let (net, info) = load_checkpoint(&path, None, &device).map_err(|e| fail(e.to_string()))?;
    let rules = match info.training {
        Some(training) => Some(training.rules.parse::<Rules>().map_err(|e| {
            fail(format!("{}: bad sidecar: rules '{}': {e}", path.with_extension("json").display(), training.rules))
        })?),
        None => None,
    };
    let mut evaluator = NetworkEvaluator::new(net, device, 0);
    evaluator.random_symmetry = false;
    Ok((evaluator, rules))
}

/// The network's raw policy: the most likely legal move, or one sampled from policy^(1/temperature).
pub struct PolicyAgent {
    name: String,
    evaluator: NetworkEvaluator,
    rules: Option<Rules>,
    temperature: f32,
    rng: Pcg64Mcg,
}

impl PolicyAgent {
    pub fn new(
        name: String,
        model: &str,
        temperature: f32,
        device: DeviceChoice,
        seed: u64,
    ) -> Result<Self, AgentError> {
        let (evaluator, rules) = evaluator(model, device, &name)?;
        Ok(PolicyAgent { name, evaluator, rules, temperature, rng: Pcg64Mcg::seed_from_u64(seed) })
    }

    /// The network's policy over the legal moves of `pos` (summing to 1).
    pub fn legal_policy(&mut self, rules: &Rules, pos: &Position) -> Vec<(Move, f32)> {
        let Status::Moves(moves) = rules.status(pos) else { return vec![] };
        let evals = self.evaluator.evaluate_with(rules, std::slice::from_ref(pos), &[Symmetry::IDENTITY]);
        let policy = evals.first().map_or([1.0; othello_core::POLICY_SIZE], |e| e.policy);
        let weights: Vec<(Move, f32)> = moves.map(|sq| (Move::Play(sq), policy[sq.index()].max(0.0))).collect();
        let total: f32 = weights.iter().map(|w| w.1).sum();
        let n = weights.len() as f32;
        weights.into_iter().map(|(m, w)| (m, if total > 0.0 { w / total } else { 1.0 / n })).collect()
    }
}

impl Agent for PolicyAgent {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn rules(&self) -> Option<Rules> {
        self.rules
    }

    fn select_move(&mut self, game: &Game) -> Result<Move, AgentError> {
        self.check_rules(&game.rules)?;
        if let Some(pass) = crate::agent::forced_move(game)? {
            return Ok(pass);
        }
        let policy = self.legal_policy(&game.rules, game.position());
        if self.temperature <= 1e-3 {
            // Ties (rare in floats) go to the lower square: deterministic.
            let best = policy.iter().fold(None::<(Move, f32)>, |b, &(m, p)| match b {
                Some((_, bp)) if bp >= p => b,
                _ => Some((m, p)),
            });
            return best.map(|b| b.0).ok_or(AgentError::GameOver);
        }
        let weights: Vec<f64> = policy.iter().map(|&(_, p)| (p as f64).powf(1.0 / self.temperature as f64)).collect();
        let total: f64 = weights.iter().sum();
        let mut x = self.rng.random::<f64>() * total;
        for ((m, _), w) in policy.iter().zip(&weights) {
            if x < *w {
                return Ok(*m);
            }
            x -= w;
        }
        policy.last().map(|p| p.0).ok_or(AgentError::GameOver)
    }
}

/// Leaves evaluated per network call: enough to batch, few enough that virtual losses barely bend the search.
pub const SEARCH_BATCH: usize = 8;

/// The network with MCTS: PUCT (or Gumbel AlphaZero's root with `gumbel`, drawing no Gumbel noise), no root noise,
/// and the subtree of the moves played kept for the next search, which then tops the root up to `sims` visits.
pub struct NetworkMctsAgent {
    name: String,
    evaluator: NetworkEvaluator,
    rules: Option<Rules>,
    /// Its root noise is always off.
    search: PlayerSearch,
    seed: u64,
    /// The tree of the last search and the game's moves when it was made.
    tree: Option<(Tree, Vec<Move>)>,
}

impl NetworkMctsAgent {
    pub fn new(
        name: String,
        model: &str,
        search: PlayerSearch,
        device: DeviceChoice,
        seed: u64,
    ) -> Result<Self, AgentError> {
        let (evaluator, rules) = evaluator(model, device, &name)?;
        let search = PlayerSearch::new(search.sims, search.gumbel, search.mcts);
        Ok(NetworkMctsAgent { name, evaluator, rules, search, seed, tree: None })
    }

    /// The last search's tree moved on to the game's position, or a fresh one.
    fn tree_for(&mut self, game: &Game) -> Tree {
        let fresh = || {
            let rng = Pcg64Mcg::seed_from_u64(self.seed ^ game.moves().len() as u64);
            Tree::new(game.rules, *game.position(), self.search.mcts.clone(), rng)
        };
        match self.tree.take() {
            Some((mut tree, seen)) if game.moves().starts_with(&seen) => {
                for &mv in &game.moves()[seen.len()..] {
                    tree.advance(mv);
                }
                if tree.position() == game.position() {
                    tree
                } else {
                    fresh()
                }
            }
            _ => fresh(),
        }
    }
}

impl Agent for NetworkMctsAgent {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn rules(&self) -> Option<Rules> {
        self.rules
    }

    fn select_move(&mut self, game: &Game) -> Result<Move, AgentError> {
        self.check_rules(&game.rules)?;
        if let Some(pass) = crate::agent::forced_move(game)? {
            return Ok(pass);
        }
        let mut tree = self.tree_for(game);
        let sims = self.search.sims;
        let chosen = match self.search.gumbel {
            Some(considered) => tree.gumbel_search(&mut self.evaluator, sims, SEARCH_BATCH, considered),
            None => {
                let more = sims.saturating_sub(tree.root_visits()).max(1);
                tree.search(&mut self.evaluator, more, SEARCH_BATCH);
                tree.choose_move(0.0)
            }
        };
        let mv = chosen.ok_or_else(|| AgentError::Failed {
            agent: self.name.clone(),
            message: "the search found no move".into(),
        })?;
        self.tree = Some((tree, game.moves().to_vec()));
        Ok(mv)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::AgentSpec;
    use crate::RandomAgent;
    use othello_net::{predict, save_checkpoint, CheckpointInfo, NetConfig, Predictor};
    use othello_run::RunDir;
    use rand::Rng;

    /// The agent of a spec written in a test.
    fn agent_from_spec(spec: &str, seed: u64) -> Result<Box<dyn Agent>, AgentError> {
        spec.parse::<AgentSpec>().expect("a valid spec").agent(seed)
    }

    /// A run directory holding one checkpoint of a tiny seeded network.
    fn tiny_run() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let device = DeviceChoice::Flex.device().unwrap();
        let config = NetConfig::new(1, 8);
        let net = config.init_seeded(&device, 7);
        let info = CheckpointInfo::untrained(config, 3);
        save_checkpoint(&RunDir::new(dir.path()).models(), &net, &info).unwrap();
        dir
    }

    #[test]
    fn a_checkpoint_plays_only_its_runs_rules() {
        let dir = tempfile::tempdir().unwrap();
        let device = DeviceChoice::Flex.device().unwrap();
        let config = NetConfig::new(1, 8);
        let four = Rules::othello().with_size(4).unwrap();
        let training = othello_net::TrainingInfo { rules: four.to_string(), ..Default::default() };
        let info = CheckpointInfo { training: Some(training), ..CheckpointInfo::untrained(config.clone(), 5) };
        save_checkpoint(&RunDir::new(dir.path()).models(), &config.init_seeded(&device, 7), &info).unwrap();
        for kind in ["policy:model", "net:sims=4,model"] {
            let spec = format!("{kind}={}", dir.path().display());
            let mut agent = agent_from_spec(&spec, 1).unwrap();
            assert_eq!(agent.rules(), Some(four));
            assert!(agent.select_move(&Game::new(four)).is_ok());
            let err = agent.select_move(&Game::new(Rules::othello())).unwrap_err().to_string();
            assert!(err.contains("plays only othello,4x4") && err.contains("not othello,8x8"), "{err}");
            let parsed: AgentSpec = spec.parse().unwrap();
            assert!(parsed.check(&Rules::othello()).is_err());
            assert!(parsed.check(&four).is_ok());
        }
        // A network no trainer wrote plays any rules.
        let untrained = tiny_run();
        let mut agent = agent_from_spec(&format!("policy:model={}", untrained.path().display()), 1).unwrap();
        assert_eq!(agent.rules(), None);
        assert!(agent.select_move(&Game::new(four)).is_ok() && agent.select_move(&Game::new(Rules::othello())).is_ok());
    }

    fn random_games(rules: Rules, games: u64) -> Vec<Game> {
        let mut out = vec![];
        for seed in 0..games {
            let mut game = Game::new(rules);
            let mut agent = RandomAgent::new(seed);
            while !game.is_over() {
                out.push(game.clone());
                game.push(agent.select_move(&game).unwrap()).unwrap();
            }
        }
        out
    }

    /// `policy:` plays the legal move with the highest network output, computed here straight from `predict`.
    #[test]
    fn the_policy_agent_plays_the_networks_favourite_legal_move() {
        let scratch = tiny_run();
        let run = scratch.path();
        let model = resolve_checkpoint(run).unwrap();
        let device = DeviceChoice::Flex.device().unwrap();
        let (net, _) = load_checkpoint(&model, None, &device).unwrap();
        let predictor = Predictor::new(net, device);
        let mut agent = agent_from_spec(&format!("policy:model={}", run.display()), 1).unwrap();
        let mut checked = 0;
        for game in random_games(Rules::othello(), 3) {
            let Status::Moves(moves) = game.status() else { continue };
            let p = predict(&predictor, &game.rules, &[*game.position()], &[Symmetry::IDENTITY]);
            let best = moves.max_by(|a, b| p[0].policy[a.index()].total_cmp(&p[0].policy[b.index()])).unwrap();
            assert_eq!(agent.select_move(&game).unwrap(), Move::Play(best));
            checked += 1;
        }
        assert!(checked > 100);
        // Sampled at a temperature: legal, and reproducible from the seed.
        let spec = format!("policy:model={},temperature=1", model.display());
        let game = Game::new(Rules::othello());
        let picks = |seed| {
            let mut a = agent_from_spec(&spec, seed).unwrap();
            (0..20).map(|_| a.select_move(&game).unwrap()).collect::<Vec<_>>()
        };
        assert_eq!(picks(4), picks(4));
        assert!(picks(4).iter().all(|m| game.clone().push(*m).is_ok()));
    }

    /// `net:` plays whole legal games, the same ones from the same seed, and keeps its tree between moves.
    #[test]
    fn the_search_agent_plays_reproducibly_and_reuses_its_tree() {
        let scratch = tiny_run();
        let run = scratch.path();
        let rules = Rules::othello().with_size(6).unwrap();
        for spec in
            [format!("net:model={},sims=24", run.display()), format!("net:model={},sims=24,gumbel=4", run.display())]
        {
            let play = |seed: u64| {
                let mut net = agent_from_spec(&spec, seed).unwrap();
                let mut random = RandomAgent::new(seed);
                let mut game = Game::new(rules);
                while !game.is_over() {
                    let mv = if game.position().side == othello_core::Color::Black {
                        net.select_move(&game)
                    } else {
                        random.select_move(&game)
                    };
                    game.push(mv.unwrap()).unwrap();
                }
                game.moves().to_vec()
            };
            assert_eq!(play(5), play(5), "{spec}");
        }
        let mut agent = NetworkMctsAgent::new(
            "net".into(),
            run.to_str().unwrap(),
            PlayerSearch::new(40, None, othello_search::MctsConfig::default()),
            DeviceChoice::Flex,
            1,
        )
        .unwrap();
        let mut game = Game::new(rules);
        let mine = agent.select_move(&game).unwrap();
        game.push(mine).unwrap();
        let mut rng = Pcg64Mcg::seed_from_u64(2);
        let Status::Moves(replies) = game.status() else { panic!("a reply") };
        game.push(Move::Play(replies.nth(rng.random_range(0..replies.count())).unwrap())).unwrap();
        let reused = agent.tree_for(&game);
        assert_eq!(reused.position(), game.position());
        assert!(reused.root_visits() > 0, "the reply's subtree is kept");
    }
}
