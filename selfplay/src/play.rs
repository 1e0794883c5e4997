//! One self-play game: MCTS at every move, with the training targets of every position.

use othello_core::solve::{Limits, Mode, Solver};
use othello_core::{Game, Move, Rules, Status, POLICY_SIZE};
use othello_net::DeviceChoice;
use othello_run::config_check::{check_counts, check_numbers, spelled, FINITE, POSITIVE, SHARE};
use othello_run::{GameRecord, PositionRecord};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

use othello_search::{Evaluator, GumbelSearch, MctsConfig, RootSelection, SearchJob, Tree, MAX_SIMULATIONS};

/// What evaluates the leaves of self-play's searches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LeafEvaluator {
    /// The newest model of the run, else a seeded random initialisation.
    Network,
    /// A uniform prior and value 0.
    Uniform,
    /// Random games from the leaf (`rollouts` of them).
    Rollouts,
}

/// How self-play plays (the `[selfplay]` section of a run config); every default documented here is what an
/// unset key means.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SelfPlayConfig {
    /// Evaluations per full search (at the start, when `final_simulations` is set). Default 200.
    pub simulations: u32,
    /// Simulations that grow during training: a full search of a game played by the checkpoint of trainer step
    /// `s` gets `simulations + (final_simulations - simulations) * min(s / simulations_ramp_steps, 1)`, so early
    /// networks, whose searches teach little, make many games and later ones make fewer, better ones. Unset
    /// (the default): `simulations` throughout.
    pub final_simulations: Option<u32>,
    /// The trainer steps over which the simulations reach `final_simulations`. Default 10000.
    pub simulations_ramp_steps: u64,
    /// Leaves gathered per evaluator call within one tree. Default 8.
    pub batch: usize,
    /// Playout cap randomization: the share of moves that get a full search and are recorded as policy
    /// targets; the others get `cheap_simulations`, no root noise, and are played but not recorded. Default 1.0
    /// (off); KataGo uses 0.25.
    pub full_search_share: f32,
    /// Evaluations of a cheap search. Default 40.
    pub cheap_simulations: u32,
    /// Moves played by sampling visits (temperature 1) at the start of a game; then the most visited. Default 10.
    pub temperature_moves: u32,
    /// Positions with at most this many empties are solved exactly: the solver's best move is played and its
    /// best moves become the policy target. 0 (the default) turns it off.
    pub solve_empties: u32,
    /// Exploration inside solved endgames: the share of solved positions where a uniformly random legal move is
    /// played instead of a best one. The targets stay exact (the solver's best moves; the first solved position's
    /// exact margin for the positions before it), so exact targets reach positions off perfect lines, where an
    /// opponent's mistakes lead. Default 0.
    pub solved_exploration: f32,
    /// What evaluates leaves. Default "network".
    pub evaluator: LeafEvaluator,
    /// Random games per leaf for the "rollouts" evaluator. Default 4.
    pub rollouts: u32,
    /// Games per replay shard. Default 16.
    pub games_per_shard: usize,
    /// Games played at once by each worker thread, their leaves evaluated together. Default 16.
    pub games_in_flight: usize,
    /// Root move selection. Default "puct".
    pub root_selection: RootSelection,
    /// Root moves a Gumbel search considers. Default 16.
    pub gumbel_considered: usize,
    /// Moves at the start of a game whose Gumbel search draws its noise (the exploration); later moves are the
    /// noiseless search's choice, as a player's, so that the results the value head learns from come from the
    /// network's best play. Unset (the default): every move draws.
    pub gumbel_noise_moves: Option<u32>,
    /// Varied openings: each game opens with a number of uniformly random legal moves, itself drawn uniformly
    /// from 0 to this, which are played but not recorded, so that self-play leaves the few lines its network
    /// prefers and its value head sees unbalanced positions. Default 0 (every game from the start).
    pub random_opening_plies: u32,
    /// Where the network runs: "flex" (CPU), or "wgpu" / "cuda" / "tch" in builds with those features. Default "flex".
    pub device: DeviceChoice,
    /// The tree search (`[selfplay.mcts]`).
    pub mcts: MctsConfig,
}

impl Default for SelfPlayConfig {
    fn default() -> SelfPlayConfig {
        SelfPlayConfig {
            simulations: 200,
            final_simulations: None,
            simulations_ramp_steps: 10_000,
            batch: 8,
            full_search_share: 1.0,
            cheap_simulations: 40,
            temperature_moves: 10,
            solve_empties: 0,
            solved_exploration: 0.0,
            evaluator: LeafEvaluator::Network,
            rollouts: 4,
            games_per_shard: 16,
            games_in_flight: 16,
            root_selection: RootSelection::Puct,
            gumbel_considered: 16,
            gumbel_noise_moves: None,
            random_opening_plies: 0,
            device: DeviceChoice::Flex,
            mcts: MctsConfig::default(),
        }
    }
}

impl SelfPlayConfig {
    /// Checks the values serde cannot (and what a `net:` player's spec takes: `gumbel_considered` 2 to 64).
    pub fn validate(&self) -> Result<(), String> {
        let sims = u64::from(MAX_SIMULATIONS);
        check_counts(
            "[selfplay]",
            &[
                ("simulations", u64::from(self.simulations), sims),
                ("final_simulations", self.final_simulations.map_or(1, u64::from), sims),
                ("simulations_ramp_steps", self.simulations_ramp_steps, u64::MAX),
                ("batch", self.batch as u64, 1 << 10),
                ("cheap_simulations", u64::from(self.cheap_simulations), sims),
                ("rollouts", u64::from(self.rollouts), u64::MAX),
                ("games_per_shard", self.games_per_shard as u64, 1 << 16),
                ("games_in_flight", self.games_in_flight as u64, 1 << 16),
            ],
        )?;
        if !(2..=64).contains(&self.gumbel_considered) {
            return Err(format!("[selfplay] gumbel_considered = {} (expected 2 to 64)", self.gumbel_considered));
        }
        if self.random_opening_plies > 64 {
            return Err(format!("[selfplay] random_opening_plies = {} (expected 0 to 64)", self.random_opening_plies));
        }
        check_numbers(
            "[selfplay]",
            &[
                ("full_search_share", spelled(self.full_search_share), SHARE),
                ("solved_exploration", spelled(self.solved_exploration), SHARE),
            ],
        )?;
        let mcts = &self.mcts;
        check_numbers(
            "[selfplay.mcts]",
            &[
                ("c_puct", spelled(mcts.c_puct), POSITIVE),
                ("fpu_reduction", spelled(mcts.fpu_reduction), FINITE),
                ("dirichlet_total", spelled(mcts.dirichlet_total), POSITIVE),
                ("dirichlet_epsilon", spelled(mcts.dirichlet_epsilon), SHARE),
                ("gumbel_q_scale", spelled(mcts.gumbel_q_scale), POSITIVE),
            ],
        )?;
        Ok(())
    }

    /// The simulations of a full search by the checkpoint of trainer step `step` (see `final_simulations`).
    pub fn simulations_at(&self, step: u64) -> u32 {
        let Some(last) = self.final_simulations else { return self.simulations };
        let progress = (step as f64 / self.simulations_ramp_steps.max(1) as f64).min(1.0);
        (self.simulations as f64 + (last as f64 - self.simulations as f64) * progress).round() as u32
    }
}

/// Plays one game of self-play with `evaluator`, seeded with `seed`.
pub fn play_game(rules: Rules, evaluator: &mut dyn Evaluator, config: &SelfPlayConfig, seed: u64) -> GameRecord {
    play_games(rules, evaluator, config, &[seed], 1).pop().expect("one game per seed")
}

/// Plays one game per seed, `in_flight` at a time: the leaves of all their searches go to the evaluator in one
/// call (up to `in_flight * config.batch` positions), which is what keeps a network busy. Records come back in
/// seed order. A game depends only on its seed as long as the evaluator is a function of the position (all of
/// this crate's evaluators are).
pub fn play_games(
    rules: Rules,
    evaluator: &mut dyn Evaluator,
    config: &SelfPlayConfig,
    seeds: &[u64],
    in_flight: usize,
) -> Vec<GameRecord> {
    let mut solver = (config.solve_empties > 0).then(Solver::new);
    let mut results: Vec<Option<GameRecord>> = vec![None; seeds.len()];
    let mut active: Vec<(usize, Playing)> = Vec::new();
    let mut next = 0;
    let (mut leaves, mut positions, mut evals, mut owners) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    loop {
        while active.len() < in_flight.max(1) && next < seeds.len() {
            active.push((next, Playing::new(rules, config, seeds[next])));
            next += 1;
        }
        for (_, g) in active.iter_mut() {
            g.prepare(config, &mut solver);
        }
        let mut i = 0;
        while i < active.len() {
            if active[i].1.game.is_over() {
                let (index, g) = active.swap_remove(i);
                results[index] = Some(GameRecord { game: g.game, positions: g.positions, seed: g.seed });
            } else {
                i += 1;
            }
        }
        if active.is_empty() {
            if next >= seeds.len() {
                break;
            }
            continue;
        }
        // Gather leaves from every tree, evaluate them together, expand.
        for (k, (_, g)) in active.iter_mut().enumerate() {
            let search = g.search.as_ref().expect("prepared games are searching");
            let from = leaves.len();
            g.tree.gather(&search.job, config.batch.max(1), &mut leaves);
            positions.extend(leaves[from..].iter().map(|l| g.tree.leaf_position(l)));
            owners.resize(leaves.len(), k);
        }
        if !positions.is_empty() {
            evaluator.evaluate(&rules, &positions, &mut evals);
            for ((leaf, eval), &k) in leaves.drain(..).zip(&evals).zip(&owners) {
                active[k].1.tree.expand(leaf, eval);
            }
            positions.clear();
            owners.clear();
        }
        for (_, g) in active.iter_mut() {
            g.step(config);
        }
    }
    results.into_iter().map(|r| r.expect("every game finished")).collect()
}

/// A game under way in [`play_games`].
struct Playing {
    game: Game,
    tree: Tree,
    rng: Pcg64Mcg,
    positions: Vec<PositionRecord>,
    seed: u64,
    search: Option<Searching>,
}

/// The search of the move under way.
struct Searching {
    /// The evaluations still to run.
    job: SearchJob,
    /// A full search (recorded as a policy target) rather than a cheap one.
    full: bool,
    /// Gumbel root selection's state; `None` for PUCT.
    gumbel: Option<GumbelSearch>,
}

impl Playing {
    fn new(rules: Rules, config: &SelfPlayConfig, seed: u64) -> Playing {
        let mut rng = Pcg64Mcg::seed_from_u64(seed);
        // Drawn only when set, so that games without it stay as they were.
        let game = match config.random_opening_plies {
            0 => Game::new(rules),
            most => Game::random_plies(rules, rng.random_range(0..=most), &mut rng),
        };
        let tree = Tree::new(rules, *game.position(), config.mcts.clone(), Pcg64Mcg::seed_from_u64(rng.random()));
        Playing { game, tree, rng, positions: Vec::new(), seed, search: None }
    }

    /// Plays forced passes and solved positions until a search is needed (and starts it) or the game ends.
    fn prepare(&mut self, config: &SelfPlayConfig, solver: &mut Option<Solver>) {
        let rules = self.game.rules;
        while self.search.is_none() && !self.game.is_over() {
            let pos = *self.game.position();
            let ply = self.game.moves().len() as u32;
            if self.game.status() == Status::MustPass {
                self.play(Move::Pass);
                continue;
            }
            let empties = rules.empties(&pos);
            let solved = match solver.as_mut().filter(|_| empties <= config.solve_empties) {
                Some(s) => s.solve(&rules, &pos, Mode::Exact, Limits::default()).ok(),
                None => None,
            };
            if let Some(solution) = solved.filter(|s| !s.best_moves.is_empty()) {
                let mut policy = [0.0; POLICY_SIZE];
                for m in &solution.best_moves {
                    policy[m.policy_index()] = 1.0 / solution.best_moves.len() as f32;
                }
                let mut mv = solution.best_moves[self.rng.random_range(0..solution.best_moves.len())];
                // Drawn only when exploring, so that games without it stay as they were.
                if config.solved_exploration > 0.0 && self.rng.random::<f32>() < config.solved_exploration {
                    let legal = rules.legal_moves(&pos);
                    let square = legal.nth(self.rng.random_range(0..legal.count())).expect("a legal move");
                    mv = Move::Play(square);
                }
                let exact_margin = Some(solution.score);
                let record =
                    PositionRecord { position: pos, ply, policy, full_search: true, exact_margin, search_value: None };
                self.positions.push(record);
                self.play(mv);
                continue;
            }
            let full = self.rng.random::<f32>() < config.full_search_share;
            let sims = if full { config.simulations } else { config.cheap_simulations };
            self.search = Some(if config.root_selection == RootSelection::Gumbel {
                self.tree.set_root_noise(false); // the Gumbel draws are the exploration
                let mut gumbel = match config.gumbel_noise_moves {
                    Some(moves) if ply >= moves => GumbelSearch::noiseless(sims, config.gumbel_considered),
                    _ => GumbelSearch::new(sims, config.gumbel_considered),
                };
                let job = gumbel.next_job(&mut self.tree).expect("a position with moves needs a search");
                Searching { job, full, gumbel: Some(gumbel) }
            } else {
                self.tree.set_root_noise(full && config.mcts.root_noise);
                Searching { job: self.tree.root_job(sims.max(1)), full, gumbel: None }
            });
        }
    }

    /// After an evaluation round: once the job is done, starts Gumbel's next round or plays the searched move.
    fn step(&mut self, config: &SelfPlayConfig) {
        let Some(search) = self.search.as_mut() else { return };
        if !self.tree.is_done(&search.job) {
            return;
        }
        if let Some(gumbel) = search.gumbel.as_mut() {
            if let Some(job) = gumbel.next_job(&mut self.tree) {
                search.job = job;
                return;
            }
        }
        self.finish_move(config);
    }

    /// The search is done: choose the move, record the position, play.
    fn finish_move(&mut self, config: &SelfPlayConfig) {
        let Some(search) = self.search.take() else { return };
        let ply = self.game.moves().len() as u32;
        let (mv, policy) = match &search.gumbel {
            Some(gumbel) => (gumbel.choice(&self.tree), self.tree.gumbel_policy_target()),
            None => {
                let temperature = if ply < config.temperature_moves { 1.0 } else { 0.0 };
                (self.tree.choose_move(temperature), self.tree.policy_target())
            }
        };
        let mv = mv.expect("a searched position with moves");
        let position = *self.game.position();
        let search_value = Some(self.tree.move_value(mv));
        let full_search = search.full;
        self.positions.push(PositionRecord { position, ply, policy, full_search, exact_margin: None, search_value });
        self.play(mv);
    }

    fn play(&mut self, mv: Move) {
        self.game.push(mv).expect("search and solver play legal moves");
        self.tree.advance(mv);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use othello_core::Position;
    use othello_search::{Evaluation, RolloutEvaluator, UniformEvaluator};

    fn small() -> SelfPlayConfig {
        SelfPlayConfig { simulations: 64, cheap_simulations: 16, full_search_share: 0.5, ..SelfPlayConfig::default() }
    }

    #[test]
    fn simulations_ramp_linearly_to_their_final_count() {
        let ramp = SelfPlayConfig {
            simulations: 32,
            final_simulations: Some(128),
            simulations_ramp_steps: 6000,
            ..SelfPlayConfig::default()
        };
        let at = |step| ramp.simulations_at(step);
        assert_eq!([at(0), at(1500), at(3000), at(6000), at(60_000)], [32, 56, 80, 128, 128]);
        let shrinking = SelfPlayConfig { final_simulations: Some(16), ..ramp.clone() };
        assert_eq!(shrinking.simulations_at(3000), 24);
        let fixed = SelfPlayConfig { final_simulations: None, ..ramp };
        assert_eq!(fixed.simulations_at(3000), 32);
    }

    #[test]
    fn records_are_legal_consistent_and_reproducible() {
        let rules = Rules::othello();
        for seed in 0..4 {
            let a = play_game(rules, &mut RolloutEvaluator::new(seed, 1), &small(), seed);
            let b = play_game(rules, &mut RolloutEvaluator::new(seed, 1), &small(), seed);
            assert_eq!(a.game.moves(), b.game.moves(), "same seed, same game");
            assert_eq!(a.positions, b.positions);
            // The moves replay under the rules, and the recorded positions are the game's.
            let replayed = Game::replay(rules, a.game.moves()).unwrap();
            assert!(replayed.is_over());
            assert_eq!(replayed.outcome(), a.outcome());
            for (i, r) in a.positions.iter().enumerate() {
                assert_eq!(replayed.positions()[r.ply as usize], r.position);
                let legal = rules.legal_moves(&r.position);
                let sum: f32 = r.policy.iter().sum();
                assert!((sum - 1.0).abs() < 1e-4, "policy sums to {sum}");
                for (sq, &p) in r.policy.iter().enumerate() {
                    assert!(p == 0.0 || (sq < 64 && legal.0 >> sq & 1 == 1), "policy on illegal {sq}");
                }
                let o = replayed.outcome();
                let mover_margin = o.margin_for(r.position.side);
                assert_eq!(a.value_target(i), mover_margin.signum() as f32);
                let own = a.ownership_target(i).iter().map(|&x| x as i32).sum::<i32>();
                assert_eq!(
                    own,
                    replayed.position().discs(r.position.side).count() as i32
                        - replayed.position().discs(!r.position.side).count() as i32
                );
            }
            let cheap = a.positions.iter().filter(|r| !r.full_search).count();
            assert!(cheap > 0 && cheap < a.positions.len(), "playout cap randomization mixes both kinds");
        }
    }

    #[test]
    fn gumbel_self_play_records_legal_distributions() {
        let rules = Rules::othello().with_size(6).unwrap();
        let config = SelfPlayConfig { root_selection: RootSelection::Gumbel, simulations: 8, ..small() };
        let mut batched = Largest(RolloutEvaluator::new(1, 1), 0);
        let a = play_games(rules, &mut batched, &config, &[1, 2], 2);
        let b = play_games(rules, &mut RolloutEvaluator::new(1, 1), &config, &[1, 2], 1);
        assert!(batched.1 > config.batch, "the rounds of two games share evaluator calls");
        for (x, y) in a.iter().zip(&b) {
            assert_eq!(x.game.moves(), y.game.moves());
            assert!(Game::replay(rules, x.game.moves()).unwrap().is_over());
            for r in &x.positions {
                let legal = rules.legal_moves(&r.position).0;
                assert!((r.policy.iter().sum::<f32>() - 1.0).abs() < 1e-4);
                assert!(r.policy.iter().enumerate().all(|(sq, &p)| p == 0.0 || (sq < 64 && legal >> sq & 1 == 1)));
            }
        }
    }

    /// Gumbel's draws are self-play's only randomness (the evaluator is a function of the position): with no move
    /// drawing, every seed plays the same game; with draws on the first moves, or on all, seeds play different ones.
    #[test]
    fn gumbel_draws_stop_after_their_moves() {
        let rules = Rules::othello().with_size(6).unwrap();
        let games = |noise_moves: Option<u32>| {
            let config = SelfPlayConfig {
                root_selection: RootSelection::Gumbel,
                simulations: 8,
                full_search_share: 1.0,
                gumbel_noise_moves: noise_moves,
                ..small()
            };
            let records = play_games(rules, &mut RolloutEvaluator::new(1, 1), &config, &[1, 2, 3, 4], 4);
            records.into_iter().map(|r| r.game.moves().to_vec()).collect::<std::collections::HashSet<_>>().len()
        };
        assert_eq!(games(Some(0)), 1, "no draws: one game whatever the seed");
        assert!(games(Some(4)) > 1 && games(None) > 1, "draws: the seeds' games differ");
    }

    /// With the search noiseless, the random opening is a game's only randomness: the seeds' games differ, each
    /// replays, is the same again from its seed, and records every searched position from the first one after
    /// its opening, whose length varies from 0 to the key.
    #[test]
    fn random_openings_vary_the_games_and_are_not_recorded() {
        let rules = Rules::othello().with_size(6).unwrap();
        let config = SelfPlayConfig {
            root_selection: RootSelection::Gumbel,
            simulations: 8,
            full_search_share: 1.0,
            gumbel_noise_moves: Some(0),
            random_opening_plies: 4,
            ..small()
        };
        let seeds: Vec<u64> = (1..=24).collect();
        let records = play_games(rules, &mut RolloutEvaluator::new(1, 1), &config, &seeds, 8);
        let again = play_games(rules, &mut RolloutEvaluator::new(1, 1), &config, &seeds[..3], 1);
        for (a, b) in records.iter().zip(&again) {
            assert_eq!(a.game.moves(), b.game.moves(), "the same seed, the same opening and game");
        }
        let mut opening_lengths = std::collections::BTreeSet::new();
        for record in &records {
            assert!(Game::replay(rules, record.game.moves()).unwrap().is_over());
            let first = record.positions[0].ply;
            assert!(first <= 4, "the first recorded position follows an opening of at most 4 plies");
            opening_lengths.insert(first);
            // Nothing is solved here: every ply after the opening is recorded but the forced passes.
            let later = record.game.moves().len() - first as usize;
            let passes = record.game.moves()[first as usize..].iter().filter(|m| **m == Move::Pass).count();
            assert_eq!(record.positions.len(), later - passes);
        }
        assert_eq!(opening_lengths.len(), 5, "openings of 0 to 4 plies: {opening_lengths:?}");
        let games: std::collections::HashSet<_> = records.iter().map(|r| r.game.moves().to_vec()).collect();
        assert!(games.len() > 12, "{} distinct games of 24", games.len());
        let noiseless = SelfPlayConfig { random_opening_plies: 0, ..config };
        let same = play_games(rules, &mut RolloutEvaluator::new(1, 1), &noiseless, &seeds[..4], 4);
        assert!(same.iter().all(|r| r.game.moves() == same[0].game.moves()), "without it, one game");
    }

    /// An evaluator that remembers its largest call.
    struct Largest<E>(E, usize);

    impl<E: Evaluator> Evaluator for Largest<E> {
        fn evaluate(&mut self, rules: &Rules, positions: &[Position], out: &mut Vec<Evaluation>) {
            self.1 = self.1.max(positions.len());
            self.0.evaluate(rules, positions, out);
        }
    }

    /// Batching the leaves of many games changes nothing in any one game.
    #[test]
    fn games_in_flight_do_not_change_the_games() {
        let rules = Rules::othello().with_size(6).unwrap();
        let seeds = [5, 6, 7, 8, 9];
        let one_by_one: Vec<_> =
            seeds.iter().map(|&s| play_game(rules, &mut RolloutEvaluator::new(1, 2), &small(), s)).collect();
        let together = play_games(rules, &mut RolloutEvaluator::new(1, 2), &small(), &seeds, 3);
        for (a, b) in one_by_one.iter().zip(&together) {
            assert_eq!(a.game.moves(), b.game.moves());
            assert_eq!(a.positions, b.positions);
        }
    }

    #[test]
    fn solved_endgames_play_perfectly() {
        let rules = Rules::othello();
        let config = SelfPlayConfig { solve_empties: 10, simulations: 16, ..SelfPlayConfig::default() };
        let record = play_game(rules, &mut UniformEvaluator, &config, 3);
        let mut solver = Solver::new();
        let solved: Vec<&PositionRecord> = record.positions.iter().filter(|r| r.exact_margin.is_some()).collect();
        assert!(solved.len() >= 8, "the last 10 empties are solved");
        for r in solved {
            assert!(64 - r.position.occupied().count() <= 10);
            let all = solver.solve(&rules, &r.position, Mode::AllMoves, Limits::default()).unwrap();
            let played = record.game.moves()[r.ply as usize];
            let value = all.move_scores.iter().find(|m| m.0 == played).unwrap().1;
            assert_eq!(value, all.score, "the played move is optimal");
        }
        // Perfect play from the first solved position keeps its exact value to the end, so every position's
        // target, exact or not, is the game's result.
        let first = record.positions.iter().find(|r| r.exact_margin.is_some()).unwrap();
        let exact = solver.solve(&rules, &first.position, Mode::Exact, Limits::default()).unwrap().score;
        assert_eq!(record.outcome().margin_for(first.position.side), exact);
        for (i, r) in record.positions.iter().enumerate() {
            assert_eq!(record.margin_target(i), record.outcome().margin_for(r.position.side));
        }
    }

    /// On a smaller board too, a solved position's policy target lies on the solver's best moves only, in the
    /// policy's square order, and covers at least one of them.
    #[test]
    fn solved_policy_targets_are_the_solvers_best_moves_on_6x6() {
        let rules = Rules::othello().with_size(6).unwrap();
        let config = SelfPlayConfig { solve_empties: 10, simulations: 16, ..SelfPlayConfig::default() };
        let mut solver = Solver::new();
        let mut checked = 0;
        for seed in 0..4 {
            let record = play_game(rules, &mut UniformEvaluator, &config, seed);
            for r in record.positions.iter().filter(|r| r.exact_margin.is_some()) {
                let all = solver.solve(&rules, &r.position, Mode::AllMoves, Limits::default()).unwrap();
                let best: Vec<usize> =
                    all.move_scores.iter().filter(|m| m.1 == all.score).map(|m| m.0.policy_index()).collect();
                let targets: Vec<usize> = (0..POLICY_SIZE).filter(|&k| r.policy[k] > 0.0).collect();
                assert!(!targets.is_empty() && targets.iter().all(|k| best.contains(k)), "{targets:?} not in {best:?}");
                checked += 1;
            }
        }
        assert!(checked >= 20, "{checked} solved positions");
    }

    /// The search's value of the move played is the game's result where that move ends the game (the child is
    /// terminal, its value exact), from the mover's side; near the end it predicts the result; solved positions
    /// have none.
    #[test]
    fn search_values_are_the_movers_and_exact_at_the_last_move() {
        let rules = Rules::othello().with_size(6).unwrap();
        let config = SelfPlayConfig { solve_empties: 0, simulations: 32, ..SelfPlayConfig::default() };
        let (mut last_moves, mut agree, mut late) = (0, 0.0, 0);
        for seed in 0..8 {
            let record = play_game(rules, &mut RolloutEvaluator::new(seed, 2), &config, seed);
            for (i, r) in record.positions.iter().enumerate() {
                let q = r.search_value.expect("every searched position has a search value");
                assert!((-1.0..=1.0).contains(&q));
                let played = record.game.moves()[r.ply as usize];
                let next = rules.play(&r.position, played).unwrap();
                if rules.status(&next) == Status::Over {
                    assert_eq!(q, record.value_target(i), "seed {seed}, position {i}");
                    last_moves += 1;
                } else if (rules.mask() & !r.position.occupied().0).count_ones() <= 6 {
                    agree += q * record.value_target(i);
                    late += 1;
                }
            }
        }
        assert!(last_moves >= 6, "{last_moves} game-ending moves");
        assert!(
            agree / late as f32 > 0.3,
            "search values near the end agree with the results: {}",
            agree / late as f32
        );
        let solving = SelfPlayConfig { solve_empties: 8, simulations: 16, ..SelfPlayConfig::default() };
        let record = play_game(Rules::othello(), &mut UniformEvaluator, &solving, 1);
        for (i, r) in record.positions.iter().enumerate() {
            assert_eq!(r.search_value.is_none(), r.exact_margin.is_some());
            if r.exact_margin.is_some() {
                assert_eq!(record.search_value_target(i), record.value_target(i), "exact where solved");
            }
        }
    }

    /// Random moves inside solved endgames leave the game's result behind, and the targets stay exact: each solved
    /// position's own perfect-play margin, and the first solved position's for those before it.
    #[test]
    fn exploring_solved_endgames_keeps_exact_targets() {
        let rules = Rules::othello();
        let config =
            SelfPlayConfig { solve_empties: 10, solved_exploration: 0.5, simulations: 16, ..SelfPlayConfig::default() };
        let mut solver = Solver::new();
        let (mut blunders, mut results_moved) = (0, 0);
        for seed in 0..6 {
            let record = play_game(rules, &mut UniformEvaluator, &config, seed);
            let first = record.positions.iter().position(|r| r.exact_margin.is_some()).unwrap();
            for (i, r) in record.positions.iter().enumerate() {
                if i >= first && r.exact_margin.is_none() {
                    panic!("seed {seed}: position {i} after the first solved one is not solved");
                }
                let Some(margin) = r.exact_margin else { continue };
                let all = solver.solve(&rules, &r.position, Mode::AllMoves, Limits::default()).unwrap();
                assert_eq!(margin, all.score);
                assert_eq!(record.margin_target(i), all.score);
                assert_eq!(record.value_target(i), all.score.signum() as f32);
                for (m, score) in &all.move_scores {
                    let p = r.policy[m.policy_index()];
                    assert_eq!(p > 0.0, *score == all.score, "seed {seed}: the policy target is the best moves");
                }
                let played = record.game.moves()[r.ply as usize];
                blunders += (all.move_scores.iter().find(|m| m.0 == played).unwrap().1 < all.score) as u32;
            }
            let exact = record.positions[first].exact_margin.unwrap();
            for (i, r) in record.positions[..first].iter().enumerate() {
                let expected = if r.position.side == record.positions[first].position.side { exact } else { -exact };
                assert_eq!(record.margin_target(i), expected);
            }
            results_moved += (record.outcome().margin_for(record.positions[first].position.side) != exact) as u32;
        }
        assert!(blunders > 5, "random moves in solved positions: {blunders} lost value");
        assert!(results_moved > 0, "some games end elsewhere than perfect play would");
    }
}
