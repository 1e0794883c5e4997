//! `othello-zero bench`: the speed figures recorded in docs/BENCHMARKS.md.

use std::time::Instant;

use anyhow::{bail, Context, Result};
use clap::Subcommand;
use othello_core::perft::perft_with;
use othello_core::playout::random_games_with;
use othello_core::{Convention, KernelKind, Rules};
use othello_net::{DeviceChoice, NetConfig};
use othello_run::RunDir;

/// Benchmarks: `random`, `net`, `train`, `pattern`, `perft`.
///
/// Each prints its figure as docs/BENCHMARKS.md records it: `random` (random games per second), `net` (network
/// inference), `train` (training steps), `pattern` (the pattern engine's search), `perft` (perft leaves per second).
#[derive(clap::Args)]
pub struct BenchArgs {
    #[command(subcommand)]
    what: BenchCommand,
}

#[derive(Subcommand)]
pub enum BenchCommand {
    /// Uniformly random full games from the start position on one core (seeded PCG).
    Random {
        /// Games per kernel.
        #[arg(long, value_parser = crate::flags::positive::<u64>, default_value_t = 2_000_000)]
        games: u64,
        /// Seeds the games.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Only this kernel (default: every kernel the CPU has).
        #[arg(long)]
        kernel: Option<KernelKind>,
        /// Repeat and keep the fastest run.
        #[arg(long, value_parser = crate::flags::positive::<u32>, default_value_t = 3)]
        repeat: u32,
    },
    /// Network inference: positions/s and GFLOP/s, next to a large matrix product's GFLOP/s in the same run.
    Net {
        /// Residual blocks of the network measured.
        #[arg(long, default_value_t = 4)]
        blocks: usize,
        /// Filters (channels) of each block.
        #[arg(long, value_parser = crate::flags::positive::<usize>, default_value_t = 64)]
        filters: usize,
        /// Positions a batch.
        #[arg(long, value_parser = crate::flags::positive::<usize>, default_value_t = 64)]
        batch: usize,
        /// Seconds per measurement.
        #[arg(long, default_value = "5", value_parser = crate::flags::seconds)]
        seconds: std::time::Duration,
        /// flex (CPU), or wgpu / cuda / tch in builds with those features.
        #[arg(long, default_value = "flex")]
        device: DeviceChoice,
    },
    /// Training: samples/s of a bare Burn training step on one fixed batch, of the trainer's whole step (draw,
    /// augment, encode, step), and of the loader alone, on shards of random games made for the purpose.
    Train {
        /// Residual blocks of the network measured.
        #[arg(long, default_value_t = 4)]
        blocks: usize,
        /// Filters (channels) of each block.
        #[arg(long, value_parser = crate::flags::positive::<usize>, default_value_t = 64)]
        filters: usize,
        /// Positions a batch.
        #[arg(long, value_parser = crate::flags::positive::<usize>, default_value_t = 256)]
        batch: usize,
        /// Seconds per measurement.
        #[arg(long, default_value = "10", value_parser = crate::flags::seconds)]
        seconds: std::time::Duration,
        /// Measurements of each kind, taken in turn; the best of each is reported.
        #[arg(long, value_parser = crate::flags::positive::<u32>, default_value_t = 3)]
        rounds: u32,
    },
    /// The pattern engine's midgame search on one core: the first POSITIONS shipped balanced openings searched to
    /// DEPTH plies (a fresh table each), nodes per second per kernel.
    Pattern {
        /// Plies searched, 1 to 40 (as `pattern:depth=`).
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=40), default_value_t = 12)]
        depth: u32,
        /// Openings searched.
        #[arg(long, value_parser = crate::flags::positive::<usize>, default_value_t = 20)]
        positions: usize,
        /// Only this kernel (default: every kernel the CPU has).
        #[arg(long)]
        kernel: Option<KernelKind>,
    },
    /// Perft from the start position on one core, leaves convention (Egaroucid mode 1) by default.
    Perft {
        /// Plies counted, 1 to 21 (as `perft`: past that the count no longer fits 64 bits).
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=21), default_value_t = 11)]
        depth: u32,
        /// How passes and finished games count: edges, leaves or no-pass (see `perft --help`).
        #[arg(long, default_value = "leaves")]
        convention: Convention,
        /// Only this kernel (default: every kernel the CPU has).
        #[arg(long)]
        kernel: Option<KernelKind>,
        /// Repeat and keep the fastest run.
        #[arg(long, value_parser = crate::flags::positive::<u32>, default_value_t = 3)]
        repeat: u32,
    },
}

fn kernels(only: Option<KernelKind>) -> Result<Vec<KernelKind>> {
    match only {
        Some(k) if !k.is_available() => bail!("this CPU cannot run the {k} kernel"),
        Some(k) => Ok(vec![k]),
        None => Ok(KernelKind::available()),
    }
}

/// Runs `f` `repeat` times and returns its last result and the shortest time in seconds.
fn best_of<T>(repeat: u32, mut f: impl FnMut() -> T) -> (T, f64) {
    let mut best = f64::INFINITY;
    let mut out = None;
    for _ in 0..repeat.max(1) {
        let t = Instant::now();
        let r = f();
        best = best.min(t.elapsed().as_secs_f64());
        out = Some(r);
    }
    (out.expect("ran at least once"), best)
}

pub fn bench(args: BenchArgs) -> Result<()> {
    let cmd = args.what;
    let rules = Rules::othello();
    let start = rules.start_position();
    match cmd {
        BenchCommand::Random { games, seed, kernel, repeat } => {
            outln!("random games from the start position, 1 thread, best of {repeat}");
            for k in kernels(kernel)? {
                let (stats, secs) = best_of(repeat, || {
                    random_games_with(k, start.player.0, start.opponent.0, rules.mask(), games, seed)
                });
                outln!(
                    "{k:>8}: {games} games in {secs:.3} s = {:.0} games/s, {:.1} M moves/s (black wins {:.1}%, draws {:.1}%)",
                    games as f64 / secs,
                    stats.moves as f64 / secs / 1e6,
                    100.0 * stats.wins as f64 / games as f64,
                    100.0 * stats.draws as f64 / games as f64,
                );
            }
        }
        BenchCommand::Net { blocks, filters, batch, seconds, device } => {
            net(blocks, filters, batch, seconds.as_secs_f64(), device)?
        }
        BenchCommand::Train { blocks, filters, batch, seconds, rounds } => {
            train(blocks, filters, batch, seconds.as_secs_f64(), rounds)?
        }
        BenchCommand::Pattern { depth, positions, kernel } => pattern(depth, positions, kernel)?,
        BenchCommand::Perft { depth, convention, kernel, repeat } => {
            outln!("perft {depth} ({convention}) from the start position, 1 thread, best of {repeat}");
            for k in kernels(kernel)? {
                let (leaves, secs) = best_of(repeat, || perft_with(k, &rules, &start, depth, convention));
                outln!("{k:>8}: {leaves} leaves in {secs:.3} s = {:.1} M leaves/s", leaves as f64 / secs / 1e6);
            }
        }
    }
    Ok(())
}

/// Runs `f` repeatedly for about `seconds`; returns the calls per second.
fn rate(seconds: f64, mut f: impl FnMut()) -> f64 {
    f(); // warm-up
    let t = Instant::now();
    let mut n = 0u64;
    while t.elapsed().as_secs_f64() < seconds {
        f();
        n += 1;
    }
    n as f64 / t.elapsed().as_secs_f64()
}

fn net(blocks: usize, filters: usize, batch: usize, seconds: f64, choice: DeviceChoice) -> Result<()> {
    use burn::tensor::{Distribution, Tensor};
    use othello_search::Evaluator;
    use othello_search::NetworkEvaluator;

    let device = choice.device()?;
    let threads = std::env::var("RAYON_NUM_THREADS").unwrap_or_else(|_| "all cores".into());
    outln!("network {blocks}x{filters}, batch {batch}, {choice} backend, CPU threads: {threads}");
    let config = NetConfig::new(blocks, filters);
    let mut evaluator = NetworkEvaluator::new(config.init_seeded(&device, 1), device.clone(), 1);
    evaluator.cache_capacity = 0;
    let rules = Rules::othello();
    let positions = vec![rules.start_position(); batch];
    let mut out = Vec::new();
    let batches = rate(seconds, || evaluator.evaluate(&rules, &positions, &mut out));
    let positions_per_s = batches * batch as f64;
    let gflops = positions_per_s * config.flops_per_position() / 1e9;
    let n = 1024;
    let a = Tensor::<2>::random([n, n], Distribution::Default, &device);
    let b = Tensor::<2>::random([n, n], Distribution::Default, &device);
    let matmuls = rate(seconds, || {
        let _ = a.clone().matmul(b.clone()).into_data();
    });
    let matmul_gflops = matmuls * 2.0 * (n * n * n) as f64 / 1e9;
    outln!("{positions_per_s:.0} positions/s, {gflops:.1} GFLOP/s ({:.0}% of a {n}x{n} matrix product's {matmul_gflops:.1} GFLOP/s)", 100.0 * gflops / matmul_gflops);
    Ok(())
}

fn train(blocks: usize, filters: usize, batch: usize, seconds: f64, rounds: u32) -> Result<()> {
    use othello_train::throughput::{bench_train, synthetic_replay};
    // A scratch run, removed when dropped, on success or error.
    let scratch = tempfile::Builder::new().prefix("othello-zero-bench-train-").tempdir().context("a scratch run")?;
    let run = RunDir::new(scratch.path());
    let threads = std::env::var("RAYON_NUM_THREADS").unwrap_or_else(|_| "all cores".into());
    outln!("training {blocks}x{filters}, batch {batch}, AdamW, flex backend, threads: {threads}");
    let positions = synthetic_replay(&run, 400)?;
    let r = bench_train(&run, NetConfig::new(blocks, filters), batch, seconds, rounds)?;
    outln!("replay window: {positions} positions; best of {rounds} rounds of {seconds} s");
    outln!("bare training step (fixed batch):   {:>9.0} samples/s", r.bare);
    outln!(
        "trainer step (draw+augment+encode): {:>9.0} samples/s ({:.1}% of bare)",
        r.trainer,
        100.0 * r.trainer / r.bare
    );
    outln!(
        "loader alone:                       {:>9.0} samples/s ({:.0}x what the trainer consumes)",
        r.loader,
        r.loader / r.trainer
    );
    Ok(())
}

fn pattern(depth: u32, positions: usize, kernel: Option<KernelKind>) -> Result<()> {
    use othello_players::pattern_engine::{Budget, PatternEngine};
    let rules = Rules::othello();
    let Some(set) = othello_eval::openings::Openings::shipped(&rules) else { bail!("no shipped openings") };
    let games: Vec<othello_core::Game> =
        set.lines.iter().take(positions).filter_map(|m| othello_core::Game::replay(rules, m).ok()).collect();
    let kernels = match kernel {
        Some(k) => vec![k],
        None => KernelKind::available(),
    };
    for k in kernels {
        let (mut nodes, started) = (0u64, Instant::now());
        for game in &games {
            let mut engine = PatternEngine::new(Budget::Depth(depth), Some(0)).with_kernel(k);
            nodes += engine.search(&rules, game)?.nodes;
        }
        let seconds = started.elapsed().as_secs_f64();
        outln!(
            "pattern {:8} depth {depth}: {} positions, {nodes} nodes in {seconds:.2} s: {:.2} M nodes/s, {:.3} s per position",
            k.name(),
            games.len(),
            nodes as f64 / seconds / 1e6,
            seconds / games.len() as f64
        );
    }
    Ok(())
}
