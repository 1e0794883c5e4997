//! `othello-zero selfplay`: runs a self-play worker with a progress line.

use std::path::Path;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use anyhow::Result;
use othello_run::RunDir;
use othello_selfplay::worker::{self, Progress, WorkerOptions};

use crate::progress::ProgressDisplay;
use crate::run_config::RunConfig;

/// Play self-play games into RUN/replay (resumes: games already there are not played again).
#[derive(clap::Args)]
pub struct SelfplayArgs {
    /// The run directory.
    #[arg(long)]
    run: std::path::PathBuf,
    /// Games for this worker in total (games already in RUN/replay count); 0: until stopped.
    #[arg(long, value_parser = worker_games, default_value_t = 64)]
    games: u64,
    /// Threads (one game each at a time).
    #[arg(long, value_parser = crate::flags::thread_count, default_value_t = 1)]
    threads: usize,
    /// Worker id: give each process sharing a run directory its own.
    #[arg(long, default_value_t = 0)]
    worker: u32,
    /// Config file of a new run (default: the embedded one); a run keeps its RUN/config.toml, and a different one is
    /// refused.
    #[arg(long)]
    config: Option<std::path::PathBuf>,
}

/// A self-play worker's games: 0 (until stopped) to the most its game ids can tell apart.
fn worker_games(text: &str) -> Result<u64, String> {
    use othello_selfplay::worker::MAX_GAMES_PER_WORKER;
    match text.parse::<u64>() {
        Ok(n) if n <= MAX_GAMES_PER_WORKER => Ok(n),
        Ok(_) => Err(format!("expected at most {MAX_GAMES_PER_WORKER} (a worker's game ids), or 0: until stopped")),
        Err(_) => Err(format!("'{text}' is not a whole number")),
    }
}

pub fn selfplay(a: SelfplayArgs) -> Result<()> {
    play_games(&RunDir::new(a.run), a.games, a.threads, a.worker, a.config.as_deref())
}

fn play_games(run: &RunDir, games: u64, threads: usize, worker_id: u32, config: Option<&Path>) -> Result<()> {
    // Burn's CPU pool must have a thread per worker thread, or the workers queue on it (measured: 1.18x instead
    // of 1.84x with two threads). Set before the pool starts; an explicit setting wins.
    if std::env::var_os("RAYON_NUM_THREADS").is_none() {
        std::env::set_var("RAYON_NUM_THREADS", threads.to_string());
    }
    let config = RunConfig::for_run(run, config)?;
    let _worker = othello_run::RoleLock::acquire(run, &format!("selfplay-{worker_id}"))?;
    let until_stopped = games == 0;
    let games = if until_stopped { worker::MAX_GAMES_PER_WORKER } else { games };
    let opts = WorkerOptions {
        run: run.clone(),
        rules: config.rules()?,
        config: config.selfplay.clone(),
        games,
        threads,
        worker: worker_id,
        seed: config.seed,
        network: config.network.clone(),
        gated: config.eval.gating,
    };
    let progress = Progress::default();
    let mut display = ProgressDisplay::new((!until_stopped).then_some(games), "games");
    let started = Instant::now();
    let rates = || {
        let secs = started.elapsed().as_secs_f64().max(1e-9);
        let g = progress.games.load(Ordering::Relaxed);
        let evals = progress.evaluations.load(Ordering::Relaxed);
        let calls = progress.evaluator_calls.load(Ordering::Relaxed).max(1);
        format!(
            "{:.2} games/s ({:.0}/hour)  {:.0} positions/s  {:.0} evals/s ({:.0}/s through the network)  batch fill {:.0}%",
            g as f64 / secs,
            g as f64 / secs * 3600.0,
            progress.positions.load(Ordering::Relaxed) as f64 / secs,
            evals as f64 / secs,
            progress.network_evaluations.load(Ordering::Relaxed) as f64 / secs,
            100.0 * evals as f64 / calls as f64 / (opts.config.batch * opts.config.games_in_flight).max(1) as f64
        )
    };
    let result = std::thread::scope(|s| {
        let handle = s.spawn(|| worker::play(&opts, &progress));
        // Names each shard the worker could not read, once; how many.
        let warn_unreadable = |display: &ProgressDisplay| {
            let mut bad = progress.unreadable.lock().unwrap_or_else(|e| e.into_inner());
            for shard in bad.iter() {
                display.say(&format!("warning: skipping an unreadable shard (its games are played again): {shard}"));
            }
            bad.drain(..).count()
        };
        let mut unreadable = 0;
        while !handle.is_finished() {
            std::thread::sleep(Duration::from_millis(250));
            unreadable += warn_unreadable(&display);
            let done = progress.resumed.load(Ordering::Relaxed) + progress.games.load(Ordering::Relaxed);
            display.set(done, None, &rates());
        }
        unreadable += warn_unreadable(&display);
        (handle.join().expect("the worker thread does not panic"), unreadable)
    });
    display.finish();
    let (result, unreadable) = result;
    let shards = result?;
    let skipped = match unreadable {
        0 => String::new(),
        n => format!(", {n} unreadable shards skipped"),
    };
    eprintln!(
        "{} games played ({} already in {}{skipped}), {} shards written in {:.1} s: {}",
        progress.games.load(Ordering::Relaxed),
        progress.resumed.load(Ordering::Relaxed),
        run.replay().display(),
        shards.len(),
        started.elapsed().as_secs_f64(),
        rates()
    );
    Ok(())
}
