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
    /// The newest checkpoint of the run, else a seeded random initialisation.
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
    /// Evaluations per full search (at the start, when `final_sims` is set). Default 200.
    pub sims: u32,
    /// Simulations that grow during training: a full search of a game played by the checkpoint of trainer step
    /// `s` gets `simulations + (final_sims - simulations) * min(s / sims_ramp_steps, 1)`, so early
    /// networks, whose searches teach little, make many games and later ones make fewer, better ones. Unset
    /// (the default): `simulations` throughout.
    pub final_sims: Option<u32>,
    /// The trainer steps over which the simulations reach `final_sims`. Default 10000.
    pub sims_ramp_steps: u64,
    /// Leaves gathered per evaluator call within one tree. Default 8.
    pub batch: usize,
    /// Playout cap randomization: the share of moves that get a full search and are recorded as policy
    /// targets; the others get `cheap_sims`, no root noise, and are played but not recorded. Default 1.0
    /// (off); KataGo uses 0.25.
    pub full_search_share: f32,
    /// Evaluations of a cheap search. Default 40.
    pub cheap_sims: u32,
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
            sims: 200,
            final_sims: None,
            sims_ramp_steps: 10_000,
            batch: 8,
            full_search_share: 1.0,
            cheap_sims: 40,
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
                ("sims", u64::from(self.sims), sims),
                ("final_sims", self.final_sims.map_or(1, u64::from), sims),
                ("sims_ramp_steps", self.sims_ramp_steps, u64::MAX),
                ("batch", self.batch as u64, 1 << 10),
                ("cheap_sims", u64::from(self.cheap_sims), sims),
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
                ("cpuct", spelled(mcts.cpuct), POSITIVE),
                ("fpu_reduction", spelled(mcts.fpu_reduction), FINITE),
                ("dirichlet_total", spelled(mcts.dirichlet_total), POSITIVE),
                ("dirichlet_epsilon", spelled(mcts.dirichlet_epsilon), SHARE),
                ("gumbel_q_scale", spelled(mcts.gumbel_q_scale), POSITIVE),
            ],
        )?;
        Ok(())
    }

    /// The simulations of a full search by the checkpoint of trainer step `step` (see `final_sims`).
    pub fn sims_at(&self, step: u64) -> u32 {
        let Some(last) = self.final_sims else { return self.sims };
        let progress = (step as f64 / self.sims_ramp_steps.max(1) as f64).min(1.0);
        (self.sims as f64 + (last as f64 - self.sims as f64) * progress).round() as u32
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
            let sims = if full { config.sims } else { config.cheap_sims };
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
mod tests;
