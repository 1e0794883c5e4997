//! Trained networks as players: the raw policy (`policy:model=M`) and the network with MCTS
//! (`net:model=M[,sims=N][,gumbel][,score=W]`), as self-play searches but without root noise, reusing the tree
//! between moves.

use std::path::Path;
use std::time::{Duration, Instant};

use othello_core::solve::{Limits, Mode, Solver};
use othello_core::{Game, Move, Position, Rules, Status, Symmetry};
use othello_net::{load_checkpoint, resolve_checkpoint, DeviceChoice};
use othello_search::NetworkEvaluator;
use othello_search::{PlayerSearch, Tree};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

use crate::agent::{Agent, AgentError};
use crate::spec::{NetSearch, TimeControl};
use crate::thinking_time::{self, Clock};

/// A network as a player loads it: its evaluator, each position seen as it is (no symmetry) so that a player's
/// moves are a function of the position; the rules of the run that trained it (None for a network no trainer
/// wrote); the search it ships with (none for a run's checkpoint).
struct LoadedNetwork {
    evaluator: NetworkEvaluator,
    rules: Option<Rules>,
    shipped: NetSearch,
}

/// The network a spec's `model=` names, on `device`.
fn load(model: &str, device: DeviceChoice, agent: &str) -> Result<LoadedNetwork, AgentError> {
    let fail = |message: String| AgentError::Failed { agent: agent.to_string(), message };
    let path = resolve_checkpoint(Path::new(model)).map_err(|e| fail(e.to_string()))?;
    let device = device.device().map_err(|e| fail(e.to_string()))?;
    let (net, info) = load_checkpoint(&path, None, &device).map_err(|e| fail(e.to_string()))?;
    let sidecar = path.with_extension("json");
    let rules = match info.training {
        Some(training) => Some(
            training
                .rules
                .parse::<Rules>()
                .map_err(|e| fail(format!("{}: bad sidecar: rules '{}': {e}", sidecar.display(), training.rules)))?,
        ),
        None => None,
    };
    let shipped = match &info.player {
        Some(player) => {
            player.parse().map_err(|e| fail(format!("{}: bad sidecar: player '{player}': {e}", sidecar.display())))?
        }
        None => NetSearch::default(),
    };
    let mut evaluator = NetworkEvaluator::new(net, device, 0);
    evaluator.random_symmetry = false;
    Ok(LoadedNetwork { evaluator, rules, shipped })
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
        let LoadedNetwork { evaluator, rules, .. } = load(model, device, &name)?;
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

/// The most empty squares at which a player on the clock tries the solver: beyond, a proof within seconds is
/// hopeless on one core.
const SOLVER_EMPTIES: u32 = 26;

/// The network with MCTS: PUCT (or Gumbel AlphaZero's root with `gumbel`, drawing no Gumbel noise), no root noise,
/// and the subtree of the moves played kept for the next search, which then tops the root up to `sims` visits.
/// On the clock ([`TimeControl`]), it searches until the move's time is up (`sims` the cap), on a game's clock
/// stops early where the most searched move can no longer be caught, and plays the solver's move once the solver
/// proves the endgame within half the move's time.
pub struct NetworkMctsAgent {
    name: String,
    evaluator: NetworkEvaluator,
    rules: Option<Rules>,
    /// Its root noise is always off.
    search: PlayerSearch,
    seed: u64,
    /// The tree of the last search and the game's moves when it was made.
    tree: Option<(Tree, Vec<Move>)>,
    time: TimeControl,
    /// The game's clock: what a front end gave for the next move, else the player's own `total` less what its
    /// moves of this game took; with the moves of the game when it was last read.
    clock: Option<(Clock, Vec<Move>)>,
    /// A clock a front end has set for the next move.
    given_clock: Option<Clock>,
    /// Simulations a second of the last timed search: sizes a Gumbel search to the time.
    rate: Option<f64>,
    solver: Solver,
    /// The fewest empties at which the solver last ran out of time in this game: no new try until two plies later.
    unsolved_at: Option<(u32, Vec<Move>)>,
}

impl NetworkMctsAgent {
    /// The player of network `model` with `search` (each setting it leaves out the network's shipped one), on `time`.
    pub fn new(
        name: String,
        model: &str,
        search: &NetSearch,
        time: TimeControl,
        device: DeviceChoice,
        seed: u64,
    ) -> Result<Self, AgentError> {
        let LoadedNetwork { evaluator, rules, shipped } = load(model, device, &name)?;
        let search = search.or(&shipped, time.is_set()).resolve(time.is_set());
        Ok(NetworkMctsAgent {
            name,
            evaluator,
            rules,
            search,
            seed,
            tree: None,
            time,
            clock: None,
            given_clock: None,
            rate: None,
            solver: Solver::new(),
            unsolved_at: None,
        })
    }

    /// The game's clock before this move: a front end's, else the player's own, started afresh with a new game.
    fn clock_for(&mut self, game: &Game) -> Option<Clock> {
        if let Some(given) = self.given_clock.take() {
            return Some(given);
        }
        let total = Duration::from_secs_f64(self.time.total?);
        match self.clock.take() {
            Some((clock, seen)) if game.moves().starts_with(&seen) => Some(clock),
            _ => Some(Clock { left: total, moves: None }),
        }
    }

    /// The solver's move, if it proves the position within `limit` (under `SOLVER_EMPTIES` empties, and not in the
    /// two plies after a try that failed).
    fn solved_move(&mut self, game: &Game, limit: Duration) -> Option<Move> {
        let empties = game.rules.empties(game.position());
        let failed_recently = match &self.unsolved_at {
            Some((at, seen)) => game.moves().starts_with(seen) && empties + 2 > *at,
            None => false,
        };
        if empties > SOLVER_EMPTIES || failed_recently {
            return None;
        }
        let limits = Limits { time: Some(limit), nodes: None };
        match self.solver.solve(&game.rules, game.position(), Mode::BestMove, limits) {
            Ok(solution) => solution.best_moves.first().copied(),
            Err(_) => {
                self.unsolved_at = Some((empties, game.moves().to_vec()));
                None
            }
        }
    }

    /// The search's move within `deadline` (none: its simulations, whatever they take). On a game's clock
    /// (`early`), a PUCT search stops once its leader cannot be caught, leaving the time to the moves after it.
    fn searched_move(&mut self, tree: &mut Tree, deadline: Option<Instant>, early: bool) -> Option<Move> {
        let (sims, started, visits_before) = (self.search.sims, Instant::now(), tree.root_visits());
        let chosen = match (self.search.gumbel, deadline) {
            (Some(considered), None) => tree.gumbel_search(&mut self.evaluator, sims, SEARCH_BATCH, considered),
            (None, None) => {
                let more = sims.saturating_sub(tree.root_visits()).max(1);
                tree.search(&mut self.evaluator, more, SEARCH_BATCH);
                tree.choose_move(0.0)
            }
            (Some(considered), Some(deadline)) => {
                // Sequential halving divides a budget known in advance: the simulations the time allows at the
                // last search's pace (the cap on a first search, which the clock then cuts short).
                let seconds = deadline.saturating_duration_since(started).as_secs_f64();
                let budget = self.rate.map_or(sims, |rate| ((rate * seconds) as u32).clamp(1, sims));
                let mut stop = |_: &Tree| Instant::now() >= deadline;
                tree.gumbel_search_until(&mut self.evaluator, budget, SEARCH_BATCH, considered, &mut stop)
            }
            (None, Some(deadline)) => {
                let more = sims.saturating_sub(tree.root_visits()).max(1);
                let target = tree.root_visits() + more;
                let mut stop = |tree: &Tree| {
                    let now = Instant::now();
                    if now >= deadline {
                        return true;
                    }
                    if !early {
                        return false;
                    }
                    // Stop once the most visited move cannot be overtaken in the time left at this pace.
                    let done = tree.root_visits().saturating_sub(visits_before) as f64;
                    let pace = done / now.duration_since(started).as_secs_f64().max(1e-6);
                    let left =
                        (pace * (deadline - now).as_secs_f64()).min(target.saturating_sub(tree.root_visits()) as f64);
                    let mut visits: Vec<u32> = tree.visits().into_iter().map(|(_, n)| n).collect();
                    visits.sort_unstable_by(|a, b| b.cmp(a));
                    let lead = visits.first().copied().unwrap_or(0) - visits.get(1).copied().unwrap_or(0);
                    visits.len() > 1 && lead as f64 > left
                };
                tree.search_until(&mut self.evaluator, more, SEARCH_BATCH, &mut stop);
                tree.choose_move(0.0)
            }
        };
        if deadline.is_some() {
            let (done, took) = (tree.root_visits().saturating_sub(visits_before), started.elapsed().as_secs_f64());
            if done > 0 && took > 0.0 {
                self.rate = Some(done as f64 / took);
            }
        }
        chosen
    }

    /// The move within `deadline`: at once where there is one, the solver's where it proves the endgame in half
    /// the time, else the search's (stopped `early` where its choice is settled).
    fn timed_move(&mut self, game: &Game, deadline: Option<Instant>, early: bool) -> Result<Move, AgentError> {
        if let Some(deadline) = deadline {
            if let Status::Moves(mut moves) = game.status() {
                if moves.count() == 1 {
                    return Ok(Move::Play(moves.next().expect("one move")));
                }
            }
            let half = deadline.saturating_duration_since(Instant::now()) / 2;
            if let Some(mv) = self.solved_move(game, half) {
                self.tree = None;
                return Ok(mv);
            }
        }
        let mut tree = self.tree_for(game);
        let chosen = self.searched_move(&mut tree, deadline, early);
        let mv = chosen.ok_or_else(|| AgentError::Failed {
            agent: self.name.clone(),
            message: "the search found no move".into(),
        })?;
        self.tree = Some((tree, game.moves().to_vec()));
        Ok(mv)
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
        let started = Instant::now();
        let clock = self.clock_for(game);
        let empties = game.rules.empties(game.position());
        let squares = u32::from(game.rules.size).pow(2);
        let move_time = thinking_time::move_time(self.time.time.map(Duration::from_secs_f64), clock, empties, squares);
        let mv = self.timed_move(game, move_time.map(|t| started + t), clock.is_some())?;
        if let Some(clock) = clock {
            self.clock = Some((clock.after(started.elapsed()), game.moves().to_vec()));
        }
        Ok(mv)
    }

    fn set_clock(&mut self, clock: Clock) {
        self.given_clock = Some(clock);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::{AgentKind, AgentSpec};
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

    /// A `net:` spec leaves what it does not set at the search its network ships with (on the clock, the
    /// simulations no cap); a run's checkpoint ships none, and a bad one names its sidecar.
    #[test]
    fn a_net_spec_plays_its_networks_shipped_search_where_it_sets_none() {
        let dir = tempfile::tempdir().unwrap();
        let config = NetConfig::new(1, 8);
        let net = config.init_seeded(&DeviceChoice::Flex.device().unwrap(), 7);
        let search_of = |model: &Path, settings: &str| {
            let spec: AgentSpec = format!("net:model=\"{}\"{settings}", model.display()).parse().unwrap();
            let AgentKind::Net { model, search, time, .. } = &spec.kind else { unreachable!() };
            NetworkMctsAgent::new("net".into(), model, search, *time, DeviceChoice::Flex, 1).map(|agent| agent.search)
        };
        let player = Some("sims=24,gumbel=4,cpuct=2".to_string());
        let info = CheckpointInfo { player, ..CheckpointInfo::untrained(config.clone(), 5) };
        let shipped = save_checkpoint(dir.path(), &net, &info).unwrap();
        let s = search_of(&shipped, "").unwrap();
        assert_eq!((s.sims, s.gumbel, s.mcts.cpuct), (24, Some(4), 2.0));
        let s = search_of(&shipped, ",sims=8,gumbel=false").unwrap();
        assert_eq!((s.sims, s.gumbel, s.mcts.cpuct), (8, None, 2.0));
        let s = search_of(&shipped, ",time=0.1").unwrap();
        assert_eq!((s.sims, s.gumbel), (othello_search::MAX_SIMULATIONS, Some(4)));
        let run = tiny_run();
        let s = search_of(run.path(), "").unwrap();
        assert_eq!((s.sims, s.gumbel, s.mcts.cpuct), (200, None, 1.5));
        let info = CheckpointInfo { player: Some("sims=0".into()), ..CheckpointInfo::untrained(config, 6) };
        let bad = save_checkpoint(dir.path(), &net, &info).unwrap();
        let err = search_of(&bad, "").expect_err("a bad player").to_string();
        assert!(err.contains(&bad.display().to_string()) && err.contains("player 'sims=0'"), "{err}");
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

    /// On the clock, a move keeps to its time (with room for a busy machine) and a game to the player's `total`,
    /// with PUCT's root and Gumbel's.
    #[test]
    fn a_player_on_the_clock_keeps_to_its_time() {
        let scratch = tiny_run();
        let model = scratch.path().display();
        let (time, total) = (Duration::from_millis(50), Duration::from_millis(1500));
        let mut per_move = agent_from_spec(&format!("net:model={model},time={}", time.as_secs_f64()), 1).unwrap();
        let spec = format!("net:model={model},gumbel=8,total={}", total.as_secs_f64());
        let mut whole_game = agent_from_spec(&spec, 2).unwrap();
        let mut game = Game::new(Rules::othello());
        let (mut slowest, mut game_time) = (Duration::ZERO, Duration::ZERO);
        while !game.is_over() {
            let black = game.position().side == othello_core::Color::Black;
            let started = Instant::now();
            let mv = if black { per_move.select_move(&game) } else { whole_game.select_move(&game) }.unwrap();
            let took = started.elapsed();
            if black {
                slowest = slowest.max(took);
            } else {
                game_time += took;
            }
            game.push(mv).unwrap();
        }
        let slack = Duration::from_millis(250);
        assert!(slowest < time + slack, "the slowest move of time={time:?} took {slowest:?}");
        assert!(game_time < total + slack, "the moves of total={total:?} took {game_time:?}");
    }

    /// On the clock, the endgame is the solver's: each move reaches the exact score (one of every such move, as
    /// the solver's exact mode lists them), which the untrained network alone rarely finds.
    #[test]
    fn on_the_clock_the_endgame_is_played_perfectly() {
        let scratch = tiny_run();
        let spec = format!("net:model={},time=0.5", scratch.path().display());
        let mut solver = Solver::new();
        let mut checked = 0;
        for game in random_games(Rules::othello(), 12) {
            let Status::Moves(moves) = game.status() else { continue };
            if game.rules.empties(game.position()) != 12 || moves.count() < 3 {
                continue;
            }
            let mut agent = agent_from_spec(&spec, 1).unwrap();
            let mv = agent.select_move(&game).unwrap();
            let exact = solver.solve(&game.rules, game.position(), Mode::Exact, Limits::default()).unwrap();
            assert!(exact.best_moves.contains(&mv), "{}: {mv} is not one of {:?}", game.position(), exact.best_moves);
            checked += 1;
        }
        assert!(checked >= 5, "{checked} positions");
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
            &NetSearch { sims: Some(40), ..NetSearch::default() },
            TimeControl::default(),
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
