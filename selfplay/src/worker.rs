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
use thiserror::Error;

use crate::evaluator::{Evaluation, Evaluator, RolloutEvaluator, UniformEvaluator};
use crate::game::{play_game, SelfPlayConfig};
use crate::shard::{read_shards, Provenance, Shard, ShardError};

#[derive(Debug, Error)]
pub enum WorkerError {
    #[error("unknown evaluator '{0}' (expected uniform or rollouts)")]
    Evaluator(String),
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
    /// Games already in the replay directory when the worker started.
    pub resumed: AtomicU64,
}

/// What to play.
pub struct WorkerOptions {
    /// The run directory; shards go to `run/replay`.
    pub run: PathBuf,
    pub rules: Rules,
    pub config: SelfPlayConfig,
    /// Total games for this worker id (games already in the replay directory count).
    pub games: u64,
    pub threads: usize,
    /// Distinguishes workers sharing a run directory (separate processes or machines).
    pub worker: u32,
    pub seed: u64,
}

/// The game id recorded in shards: worker in the high half, game index in the low half.
pub fn game_id(worker: u32, index: u64) -> u64 {
    (worker as u64) << 32 | index
}

/// Counts evaluations for the progress display.
struct Counting<'a, E> {
    inner: E,
    progress: &'a Progress,
}

impl<E: Evaluator> Evaluator for Counting<'_, E> {
    fn evaluate(&mut self, rules: &Rules, positions: &[Position], out: &mut Vec<Evaluation>) {
        self.progress.evaluations.fetch_add(positions.len() as u64, Ordering::Relaxed);
        self.progress.evaluator_calls.fetch_add(1, Ordering::Relaxed);
        self.inner.evaluate(rules, positions, out);
    }
}

/// Plays the worker's missing games; returns the shards written.
pub fn run(opts: &WorkerOptions, progress: &Progress) -> Result<Vec<PathBuf>, WorkerError> {
    if !matches!(opts.config.evaluator.as_str(), "uniform" | "rollouts") {
        return Err(WorkerError::Evaluator(opts.config.evaluator.clone()));
    }
    let replay = opts.run.join("replay");
    let done = games_on_disk(&replay, opts.worker);
    progress.resumed.store(done.len() as u64, Ordering::Relaxed);
    let todo: Vec<u64> = (0..opts.games).filter(|g| !done.contains(&game_id(opts.worker, *g))).collect();
    let next = AtomicU64::new(0);
    let written = Mutex::new(Vec::new());
    let failure = Mutex::new(None);
    let threads = opts.threads.max(1);
    std::thread::scope(|scope| {
        for thread in 0..threads {
            let (todo, next, written, failure, replay) = (&todo, &next, &written, &failure, &replay);
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
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed) as usize;
                    let Some(&index) = todo.get(i) else { break };
                    let seed = hash_discs(opts.seed, game_id(opts.worker, index));
                    let record = if opts.config.evaluator == "rollouts" {
                        let inner = RolloutEvaluator::new(seed, opts.config.rollouts);
                        play_game(opts.rules, &mut Counting { inner, progress }, &opts.config, seed)
                    } else {
                        play_game(opts.rules, &mut Counting { inner: UniformEvaluator, progress }, &opts.config, seed)
                    };
                    let from = Provenance { model: 0, game: game_id(opts.worker, index), worker: opts.worker as u64 };
                    shard.push_game(&record, from);
                    progress.games.fetch_add(1, Ordering::Relaxed);
                    progress.positions.fetch_add(record.positions.len() as u64, Ordering::Relaxed);
                    games_in_shard += 1;
                    if games_in_shard >= opts.config.games_per_shard.max(1) {
                        games_in_shard = 0;
                        if let Err(e) = flush(&mut shard) {
                            *failure.lock().unwrap_or_else(|e| e.into_inner()) = Some(e);
                            return;
                        }
                    }
                }
                if let Err(e) = flush(&mut shard) {
                    *failure.lock().unwrap_or_else(|e| e.into_inner()) = Some(e);
                }
            });
        }
    });
    if let Some(e) = failure.into_inner().unwrap_or_else(|e| e.into_inner()) {
        return Err(e.into());
    }
    Ok(written.into_inner().unwrap_or_else(|e| e.into_inner()))
}

/// `w0003-t01-g000042-<unique>.npz`: worker, thread, first game index, then a suffix unique across processes
/// and restarts (process id and time), so that workers sharing a directory never collide.
fn shard_name(worker: u32, thread: usize, shard: &Shard) -> String {
    let first = shard.game.first().map_or(0, |g| g & 0xffff_ffff);
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    format!("w{worker:04}-t{thread:02}-g{first:06}-{}-{nanos}.npz", std::process::id())
}

/// The game ids of `worker` already in the replay directory (unreadable shards are skipped).
fn games_on_disk(replay: &Path, worker: u32) -> std::collections::HashSet<u64> {
    if !replay.exists() {
        return Default::default();
    }
    let (shards, _bad) = read_shards(replay);
    shards.iter().flat_map(|(_, s)| s.game.iter().copied()).filter(|g| g >> 32 == worker as u64).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(run: &Path, games: u64, threads: usize) -> WorkerOptions {
        WorkerOptions {
            run: run.to_path_buf(),
            rules: Rules::othello().with_size(6).unwrap(),
            config: SelfPlayConfig { simulations: 16, games_per_shard: 3, ..Default::default() },
            games,
            threads,
            worker: 2,
            seed: 9,
        }
    }

    fn games(run: &Path) -> Vec<(u64, Vec<u64>)> {
        let (shards, bad) = read_shards(&run.join("replay"));
        assert!(bad.is_empty(), "{bad:?}");
        let mut by_game: std::collections::BTreeMap<u64, Vec<u64>> = Default::default();
        for (_, s) in &shards {
            for (i, g) in s.game.iter().enumerate() {
                by_game.entry(*g).or_default().push(s.player[i] ^ s.opponent[i].rotate_left(1));
            }
        }
        by_game.into_iter().collect()
    }

    #[test]
    fn threads_do_not_change_the_games_and_restarts_only_fill_the_gaps() {
        let base = std::env::temp_dir().join(format!("oz-worker-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        let (one, two) = (base.join("one"), base.join("two"));
        run(&options(&one, 8, 1), &Progress::default()).unwrap();
        run(&options(&two, 5, 2), &Progress::default()).unwrap();
        // A restart with a larger target plays only games 5..8.
        let progress = Progress::default();
        run(&options(&two, 8, 2), &progress).unwrap();
        assert_eq!(progress.resumed.load(Ordering::Relaxed), 5);
        assert_eq!(progress.games.load(Ordering::Relaxed), 3);
        assert_eq!(games(&one), games(&two), "same seeds and worker: same games");
        assert_eq!(games(&one).len(), 8);
        let _ = std::fs::remove_dir_all(&base);
    }
}
