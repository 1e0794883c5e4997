//! The self-play worker: plays games on several threads and writes them to `RUN/replay` as shards.
//!
//! Game `g` of worker `w` is seeded from (seed, w, g), so the same config, seed and worker id give the same
//! games whatever the number of threads. A restarted worker first reads which of its games are already in
//! `RUN/replay` and plays only the missing ones: a `kill -9` loses at most the games not yet in a shard.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use othello_core::position::hash_discs;
use othello_core::{Position, Rules};
use othello_net::{load_checkpoint, selfplay_checkpoint, CheckpointError, DeviceError, NetConfig, Network};
use othello_run::{read_shards, Provenance, RunDir, Shard, ShardError};
use thiserror::Error;

use crate::play::{play_games, LeafEvaluator, SelfPlayConfig};
use othello_search::{Evaluation, Evaluator, NetworkEvaluator, RolloutEvaluator, UniformEvaluator};

#[derive(Debug, Error)]
pub enum WorkerError {
    #[error(transparent)]
    Model(#[from] CheckpointError),
    #[error(transparent)]
    Device(#[from] DeviceError),
    #[error(transparent)]
    Shard(#[from] ShardError),
}

/// Live counters, read by the progress display while the worker runs.
#[derive(Default)]
pub struct Progress {
    pub games: AtomicU64,
    pub positions: AtomicU64,
    pub evaluations: AtomicU64,
    pub evaluator_calls: AtomicU64,
    /// Positions that went through the network (evaluations minus cache hits).
    pub network_evaluations: AtomicU64,
    /// Games already in the replay directory when the worker started.
    pub resumed: AtomicU64,
    /// Shards of the replay directory that could not be read when the worker started (their games, if this
    /// worker's, are played again), for the caller to name; taken as it reports them.
    pub unreadable: Mutex<Vec<ShardError>>,
}

/// What to play.
pub struct WorkerOptions {
    /// The run directory; shards go to its replay directory.
    pub run: RunDir,
    pub rules: Rules,
    pub config: SelfPlayConfig,
    /// Total games for this worker id (games already in the replay directory count).
    pub games: u64,
    pub threads: usize,
    /// Distinguishes workers sharing a run directory (separate processes or machines).
    pub worker: u32,
    pub seed: u64,
    /// The architecture of the random-init model used while `run/models` holds none.
    pub network: NetConfig,
    /// Play with the model `RUN/models/best.txt` names (a gated run) instead of the newest.
    pub gated: bool,
}

/// The game id recorded in shards: worker in the high half, game index in the low half.
/// The games one worker id can play: a game id holds the worker in its high 32 bits and the game's index in the
/// low 32.
pub const MAX_GAMES_PER_WORKER: u64 = 1 << 32;

pub fn game_id(worker: u32, index: u64) -> u64 {
    (worker as u64) << 32 | index
}

/// Counts evaluations for the progress display.
struct Counting<'a> {
    inner: &'a mut dyn Evaluator,
    progress: &'a Progress,
}

impl Evaluator for Counting<'_> {
    fn evaluate(&mut self, rules: &Rules, positions: &[Position], out: &mut Vec<Evaluation>) {
        self.progress.evaluations.fetch_add(positions.len() as u64, Ordering::Relaxed);
        self.progress.evaluator_calls.fetch_add(1, Ordering::Relaxed);
        self.inner.evaluate(rules, positions, out);
    }
}

/// Plays the worker's missing games; returns the shards written.
pub fn play(opts: &WorkerOptions, progress: &Progress) -> Result<Vec<PathBuf>, WorkerError> {
    let device = opts.config.device.device()?;
    let replay = opts.run.replay();
    let (done, unreadable) = games_on_disk(&replay, opts.worker);
    progress.unreadable.lock().unwrap_or_else(|e| e.into_inner()).extend(unreadable);
    progress.resumed.store(done.len() as u64, Ordering::Relaxed);
    let next = Mutex::new(0u64);
    let written = Mutex::new(Vec::new());
    let failure: Mutex<Option<WorkerError>> = Mutex::new(None);
    // No more threads than games: the others would only start and stop.
    let threads = opts.threads.min(usize::try_from(opts.games).unwrap_or(usize::MAX)).max(1);
    std::thread::scope(|scope| {
        for thread in 0..threads {
            let (done, next, written, failure, replay, device) = (&done, &next, &written, &failure, &replay, &device);
            scope.spawn(move || {
                let mut shard = Shard::default();
                let mut games_in_shard = 0;
                let flush = |shard: &mut Shard| -> Result<(), ShardError> {
                    if shard.is_empty() {
                        return Ok(());
                    }
                    let name = shard_name(opts.worker, thread, shard);
                    let path = shard.write_atomic(replay, &name)?;
                    written.lock().unwrap_or_else(|e| e.into_inner()).push(path);
                    *shard = Shard::default();
                    Ok(())
                };
                let mut model = LoadedModel::new(device.clone());
                let in_flight = opts.config.games_in_flight.max(1);
                loop {
                    let chunk = {
                        let mut next = next.lock().unwrap_or_else(|e| e.into_inner());
                        claim_games(&mut next, opts.games, in_flight, |g| done.contains(&game_id(opts.worker, g)))
                    };
                    if chunk.is_empty() {
                        break;
                    }
                    let seeds: Vec<u64> =
                        chunk.iter().map(|&g| hash_discs(opts.seed, game_id(opts.worker, g))).collect();
                    // Evaluations are functions of the position (seeded by the run's seed), so a game does not
                    // depend on the thread, the chunk or the cache it was played with.
                    let mut evaluator: Box<dyn Evaluator> = match opts.config.evaluator {
                        LeafEvaluator::Rollouts => Box::new(RolloutEvaluator::new(opts.seed, opts.config.rollouts)),
                        LeafEvaluator::Uniform => Box::new(UniformEvaluator),
                        LeafEvaluator::Network => match model.refresh(opts) {
                            Ok(net) => Box::new(NetworkEvaluator::new(net, model.device.clone(), opts.seed)),
                            Err(e) => {
                                *failure.lock().unwrap_or_else(|e| e.into_inner()) = Some(e);
                                return;
                            }
                        },
                    };
                    let config = SelfPlayConfig { sims: opts.config.sims_at(model.step), ..opts.config.clone() };
                    let records = play_games(
                        opts.rules,
                        &mut Counting { inner: evaluator.as_mut(), progress },
                        &config,
                        &seeds,
                        in_flight,
                    );
                    progress.network_evaluations.fetch_add(evaluator.network_evaluations(), Ordering::Relaxed);
                    for (record, &index) in records.iter().zip(&chunk) {
                        let from = Provenance {
                            model: model.step,
                            game: game_id(opts.worker, index),
                            worker: opts.worker as u64,
                        };
                        shard.push_game(record, from);
                        progress.games.fetch_add(1, Ordering::Relaxed);
                        progress.positions.fetch_add(record.positions.len() as u64, Ordering::Relaxed);
                        games_in_shard += 1;
                        if games_in_shard >= opts.config.games_per_shard.max(1) {
                            games_in_shard = 0;
                            if let Err(e) = flush(&mut shard) {
                                *failure.lock().unwrap_or_else(|e| e.into_inner()) = Some(e.into());
                                return;
                            }
                        }
                    }
                }
                if let Err(e) = flush(&mut shard) {
                    *failure.lock().unwrap_or_else(|e| e.into_inner()) = Some(e.into());
                }
            });
        }
    });
    if let Some(e) = failure.into_inner().unwrap_or_else(|e| e.into_inner()) {
        return Err(e);
    }
    Ok(written.into_inner().unwrap_or_else(|e| e.into_inner()))
}

/// The network a worker thread plays with: the newest checkpoint of the run (in a gated run, the best), reloaded when
/// another is chosen, or a seeded random initialisation while there is none.
struct LoadedModel {
    device: burn::tensor::Device,
    path: Option<Option<PathBuf>>,
    net: Option<Network>,
    step: u64,
}

impl LoadedModel {
    fn new(device: burn::tensor::Device) -> LoadedModel {
        LoadedModel { device, path: None, net: None, step: 0 }
    }

    fn refresh(&mut self, opts: &WorkerOptions) -> Result<Network, WorkerError> {
        let chosen = selfplay_checkpoint(&opts.run, opts.gated);
        if self.path.as_ref() != Some(&chosen) || self.net.is_none() {
            let (net, step) = match &chosen {
                Some(p) => {
                    let (net, info) = load_checkpoint(p, None, &self.device)?;
                    (net, info.step)
                }
                None => (opts.network.init_seeded(&self.device, opts.seed), 0),
            };
            self.net = Some(net);
            self.step = step;
            self.path = Some(chosen);
        }
        Ok(self.net.clone().expect("loaded above"))
    }
}

/// The next `in_flight` game indices below `games` from `*next` on that are not `done`, advancing `*next`. The
/// indices are claimed as they are needed, never listed: `run` asks for a billion games.
fn claim_games(next: &mut u64, games: u64, in_flight: usize, done: impl Fn(u64) -> bool) -> Vec<u64> {
    let mut chunk = Vec::with_capacity(in_flight);
    while chunk.len() < in_flight && *next < games {
        if !done(*next) {
            chunk.push(*next);
        }
        *next += 1;
    }
    chunk
}

/// `w0003-t01-g000042-<unique>.npz`: worker, thread, first game index, then a suffix unique across processes
/// and restarts (process id and time), so that workers sharing a directory never collide.
fn shard_name(worker: u32, thread: usize, shard: &Shard) -> String {
    let first = shard.game.first().map_or(0, |g| g & 0xffff_ffff);
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    format!("w{worker:04}-t{thread:02}-g{first:06}-{}-{nanos}.npz", std::process::id())
}

/// The game ids of `worker` already in the replay directory, and the shards that could not be read.
fn games_on_disk(replay: &Path, worker: u32) -> (std::collections::HashSet<u64>, Vec<ShardError>) {
    if !replay.exists() {
        return Default::default();
    }
    let (shards, bad) = read_shards(replay);
    (shards.iter().flat_map(|(_, s)| s.game.iter().copied()).filter(|g| g >> 32 == worker as u64).collect(), bad)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(run: &Path, games: u64, threads: usize) -> WorkerOptions {
        WorkerOptions {
            run: RunDir::new(run),
            rules: Rules::othello().with_size(6).unwrap(),
            config: SelfPlayConfig { sims: 16, games_per_shard: 3, ..Default::default() },
            games,
            threads,
            worker: 2,
            seed: 9,
            network: NetConfig::new(1, 8),
            gated: false,
        }
    }

    fn games(run: &Path) -> Vec<(u64, Vec<u64>)> {
        let (shards, bad) = read_shards(&RunDir::new(run).replay());
        assert!(bad.is_empty(), "{bad:?}");
        let mut by_game: std::collections::BTreeMap<u64, Vec<u64>> = Default::default();
        for (_, s) in &shards {
            for (i, g) in s.game.iter().enumerate() {
                by_game.entry(*g).or_default().push(s.player[i] ^ s.opponent[i].rotate_left(1));
            }
        }
        by_game.into_iter().collect()
    }

    /// Saves a 1x8 network initialised from `seed` as the run's checkpoint of `step`; returns its sidecar.
    fn save_test_model(opts: &WorkerOptions, step: u64, seed: u64) -> std::path::PathBuf {
        let net = NetConfig::new(1, 8).init_seeded(&burn::tensor::Device::flex(), seed);
        let info = othello_net::CheckpointInfo::untrained(NetConfig::new(1, 8), step);
        othello_net::save_checkpoint(&opts.run.models(), &net, &info).unwrap()
    }

    /// With the network evaluator: a random-init model until one lands in `run/models`, then that model.
    #[test]
    fn network_workers_pick_up_the_newest_model() {
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path().to_path_buf();
        let mut opts = options(&dir, 2, 1);
        opts.config.evaluator = LeafEvaluator::Network;
        run_twice_same(&opts);
        save_test_model(&opts, 42, 99);
        opts.games = 4;
        play(&opts, &Progress::default()).unwrap();
        let (shards, _) = read_shards(&opts.run.replay());
        let models: std::collections::BTreeSet<u64> = shards.iter().flat_map(|(_, s)| s.model.clone()).collect();
        assert_eq!(models, [0, 42].into_iter().collect(), "games 0-1 by the random init, 2-3 by model 42");
    }

    /// A gated worker plays the model `best.txt` names, not the newest; an ungated one the newest.
    #[test]
    fn gated_workers_play_the_best_model() {
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path().to_path_buf();
        let mut opts = options(&dir, 2, 1);
        opts.config.evaluator = LeafEvaluator::Network;
        opts.gated = true;
        let sidecars: Vec<_> = [42, 84].into_iter().map(|step| save_test_model(&opts, step, step)).collect();
        let models_played = |opts: &WorkerOptions| -> std::collections::BTreeSet<u64> {
            let (shards, _) = read_shards(&opts.run.replay());
            shards.iter().flat_map(|(_, s)| s.model.clone()).collect()
        };
        play(&opts, &Progress::default()).unwrap();
        assert_eq!(models_played(&opts), [0].into_iter().collect(), "no best yet: the random init");
        othello_net::set_best_checkpoint(&opts.run, &sidecars[0]).unwrap();
        opts.games = 4;
        play(&opts, &Progress::default()).unwrap();
        assert_eq!(models_played(&opts), [0, 42].into_iter().collect(), "the best, not the newest");
        opts.gated = false;
        opts.games = 6;
        play(&opts, &Progress::default()).unwrap();
        assert_eq!(models_played(&opts), [0, 42, 84].into_iter().collect(), "ungated: the newest");
    }

    /// With `final_sims`, the checkpoint's step sets the simulations: the same network saved at the end of
    /// the ramp gets eight times the simulations of the random init (step 0) it equals (more than four times the
    /// evaluations, the tree reused between moves), and without the ramp plays the same games as that init.
    #[test]
    fn simulations_grow_with_the_checkpoints_step() {
        let scratch = tempfile::tempdir().unwrap();
        let evaluations = |name: &str, model_step: Option<u64>, final_sims: Option<u32>| {
            let mut opts = options(&scratch.path().join(name), 2, 1);
            opts.config.evaluator = LeafEvaluator::Network;
            opts.config.sims = 8;
            opts.config.final_sims = final_sims;
            opts.config.sims_ramp_steps = 100;
            if let Some(step) = model_step {
                save_test_model(&opts, step, opts.seed); // the weights of the run's random init
            }
            let progress = Progress::default();
            play(&opts, &progress).unwrap();
            progress.evaluations.load(Ordering::Relaxed)
        };
        let start = evaluations("start", None, Some(64));
        let fixed = evaluations("fixed", Some(100), None);
        let grown = evaluations("grown", Some(100), Some(64));
        assert_eq!(fixed, start, "the same network and simulations play the same games");
        assert!(grown > 4 * start, "64 simulations a move against 8: {grown} evaluations against {start}");
    }

    #[test]
    fn games_are_claimed_in_order_skipping_those_done_without_listing_them() {
        let mut next = 0;
        let done = |g: u64| g.is_multiple_of(3);
        assert_eq!(claim_games(&mut next, u64::MAX, 4, done), [1, 2, 4, 5]);
        assert_eq!(claim_games(&mut next, u64::MAX, 4, done), [7, 8, 10, 11]);
        assert_eq!(claim_games(&mut next, 14, 4, done), [13]);
        assert!(claim_games(&mut next, 14, 4, done).is_empty());
    }

    fn run_twice_same(opts: &WorkerOptions) {
        play(opts, &Progress::default()).unwrap();
        let first = games(opts.run.root());
        let other = opts.run.root().with_extension("again");
        let _ = std::fs::remove_dir_all(&other);
        let again = WorkerOptions {
            run: RunDir::new(&other),
            config: opts.config.clone(),
            network: opts.network.clone(),
            ..*opts
        };
        play(&again, &Progress::default()).unwrap();
        assert_eq!(games(&other), first, "reproducible");
        let _ = std::fs::remove_dir_all(&other);
    }

    #[test]
    fn threads_do_not_change_the_games_and_restarts_only_fill_the_gaps() {
        let scratch = tempfile::tempdir().unwrap();
        let base = scratch.path().to_path_buf();
        let (one, two) = (base.join("one"), base.join("two"));
        play(&options(&one, 8, 1), &Progress::default()).unwrap();
        play(&options(&two, 5, 2), &Progress::default()).unwrap();
        // A restart with a larger target plays only games 5..8.
        let progress = Progress::default();
        play(&options(&two, 8, 2), &progress).unwrap();
        assert_eq!(progress.resumed.load(Ordering::Relaxed), 5);
        assert_eq!(progress.games.load(Ordering::Relaxed), 3);
        assert_eq!(games(&one), games(&two), "same seeds and worker: same games");
        assert_eq!(games(&one).len(), 8);
    }

    fn tiny() -> (NetConfig, Network, burn::tensor::Device) {
        let device = burn::tensor::Device::flex();
        let config = NetConfig::new(1, 8);
        let net = config.init_seeded(&device, 7);
        (config, net, device)
    }

    /// Self-play with a tiny network writes shards that hold only legal, consistent, reproducible games.
    #[test]
    fn self_play_with_a_tiny_network() {
        let rules = Rules::othello();
        let config = crate::play::SelfPlayConfig { sims: 12, ..SelfPlayConfig::default() };
        let play = |seed| {
            let (_, net, device) = tiny();
            let mut ev = NetworkEvaluator::new(net, device, seed);
            crate::play::play_game(rules, &mut ev, &config, seed)
        };
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path().to_path_buf();
        let mut shard = Shard::default();
        for seed in 0..2 {
            let (a, b) = (play(seed), play(seed));
            assert_eq!(a.game.moves(), b.game.moves(), "same seed and model, same game");
            shard.push_game(&a, Provenance { model: 1, game: seed, worker: 0 });
        }
        shard.write_atomic(&dir, "s.npz").unwrap();
        let (good, bad) = read_shards(&dir);
        assert!(bad.is_empty() && good.len() == 1);
        let s = &good[0].1;
        for i in 0..s.len() {
            let pos = Position::from_colors(
                othello_core::Bitboard(if s.side[i] == 0 { s.player[i] } else { s.opponent[i] }),
                othello_core::Bitboard(if s.side[i] == 0 { s.opponent[i] } else { s.player[i] }),
                if s.side[i] == 0 { othello_core::Color::Black } else { othello_core::Color::White },
            );
            let legal = rules.legal_moves(&pos).0;
            for sq in 0..64 {
                assert!(s.policy[i * 65 + sq] == 0.0 || legal >> sq & 1 == 1);
            }
        }
    }
}
