//! The `othello-zero` command line: parses arguments and calls the library crates.

mod commands;
mod input;
mod run_config;

use std::path::PathBuf;

use anyhow::Result;
use clap::{Parser, Subcommand};
use commands::{
    arena, bench, export_model, fit_eval, import_wthor, label_endgames, oracle, perft_replay_show, pipeline, selfplay,
    solve, train,
};
use othello_run::RunDir;

/// `solve --table-mb`'s default: the solver's own.
const TABLE_MB: u32 = (othello_core::solve::TABLE_BYTES >> 20) as u32;

#[derive(Parser)]
#[command(name = "othello-zero", version, about = "Othello self-play research harness")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// How the games of `arena` and `sprt` are set up.
#[derive(clap::Args)]
struct MatchArgs {
    #[arg(long, default_value = "othello")]
    rules: othello_core::Rules,
    /// Seeds the openings and every agent of every game.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Random plies from the start that make each pair's opening.
    #[arg(long, default_value_t = 4)]
    opening_plies: u32,
}

#[derive(Subcommand)]
enum Command {
    /// Count the move sequences of DEPTH plies (perft).
    Perft {
        depth: u32,
        /// How passes and finished games count: edges (OEIS A124004), leaves (Egaroucid mode 1), no-pass (mode 2).
        #[arg(long, default_value = "leaves")]
        convention: othello_core::Convention,
        /// Rule variants, comma-separated: othello, reverse, traditional, 4x4, 6x6, empties, mirror, start=BOARD.
        #[arg(long, default_value = "othello")]
        rules: othello_core::Rules,
        /// Kernel: portable, avx2, avx512 (default: the fastest this CPU has).
        #[arg(long)]
        kernel: Option<othello_core::KernelKind>,
    },
    /// Replay games (one transcript per line) and print each game's final disc counts `BLACK WHITE`.
    Replay {
        /// Read from this file instead of standard input.
        #[arg(long)]
        file: Option<PathBuf>,
        /// The input is GGF game records (several games per file).
        #[arg(long, conflicts_with = "wthor")]
        ggf: bool,
        /// Read these WTHOR database files (.wtb).
        #[arg(long, num_args = 1..)]
        wthor: Vec<PathBuf>,
        #[arg(long, default_value = "othello")]
        rules: othello_core::Rules,
    },
    /// Print a position (a transcript or a board string) with its legal moves marked `*`.
    Show {
        /// A transcript (`f5d6c3`) or a board string (64 squares and the side to move); empty for the start.
        #[arg(allow_hyphen_values = true)]
        position: Vec<String>,
        #[arg(long, default_value = "othello")]
        rules: othello_core::Rules,
    },
    /// Solve positions exactly: best moves, score, nodes and time.
    Solve {
        /// A board string with the side to move, or a transcript (empty: read `--file`).
        #[arg(allow_hyphen_values = true)]
        position: Vec<String>,
        /// A file of positions, one per line: the FFO suite's format (`<board> <side> [<best> <score> <id>]`) or Edax's
        /// `.obf` (`<board> <side>; <move>:<score>; ...`, every top-scored move a best one).
        #[arg(long)]
        file: Option<PathBuf>,
        /// Print the exact score of every legal move.
        #[arg(long, conflicts_with_all = ["wld", "one_best"])]
        all_moves: bool,
        /// The exact score and one best move, as Edax reports (a file's listed moves then count as alternatives):
        /// without it every best move is proven, which can take far longer.
        #[arg(long, conflicts_with = "wld")]
        one_best: bool,
        /// Only win/draw/loss (faster).
        #[arg(long)]
        wld: bool,
        /// Give up on a position after this many seconds.
        #[arg(long)]
        time: Option<f64>,
        /// Give up on a position after this many nodes.
        #[arg(long)]
        nodes: Option<u64>,
        #[arg(long, default_value = "othello")]
        rules: othello_core::Rules,
        /// Threads: a single position is searched on all of them, sharing one table (young brothers wait); a file's
        /// positions are solved this many at a time, one thread and table each (per-position times are then those
        /// of a thread sharing the machine; with fewer positions than threads, each is searched on several).
        #[arg(long, default_value_t = 1)]
        threads: usize,
        /// The transposition table's size in MB (per solver; 1 to 16384), rounded down to a power of two. The
        /// default suits the FFO suite; a position with many more empties may gain from a larger one.
        #[arg(long, default_value_t = TABLE_MB, value_parser = clap::value_parser!(u32).range(1..=16384))]
        table_mb: u32,
        /// Also print a line of perfect play for both sides to the end of the game (its search is not counted in
        /// the nodes and time printed; the limits cut it short).
        #[arg(long, conflicts_with = "wld")]
        pv: bool,
    },
    /// Measure an agent against the exact solver on positions with E empties from WTHOR games.
    Oracle {
        /// An agent spec: random, greedy, positional:depth=N, mcts:sims=N, each optionally with +endgameK (e.g.
        /// greedy+endgame14).
        #[arg(long, default_value = "greedy")]
        agent: String,
        #[arg(long, default_value_t = 14)]
        empties: u32,
        #[arg(long, default_value_t = 200)]
        positions: usize,
        /// WTHOR game files to sample from.
        #[arg(long, num_args = 1.., required = true)]
        wthor: Vec<PathBuf>,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Positions solved at a time, one thread each.
        #[arg(long, default_value_t = 1)]
        threads: usize,
    },
    /// Fit the pattern evaluation (the solver's move ordering) on WTHOR games; every 20th game is held out and
    /// the error on it printed per phase.
    FitEval {
        /// WTHOR game files.
        #[arg(num_args = 1.., required = true)]
        wthor: Vec<PathBuf>,
        /// Exact labels from `label-endgames`: the games' positions take their labels from the nearest exactly
        /// known position, and the other children join the training set.
        #[arg(long)]
        labels: Option<PathBuf>,
        /// Where to write the weights (the crate ships core/src/pattern/weights.bin).
        #[arg(long)]
        out: PathBuf,
        #[arg(long, default_value_t = 400)]
        epochs: u32,
        /// Ridge penalty in pseudo-samples per weight.
        #[arg(long, default_value_t = 16.0)]
        prior: f64,
    },
    /// Solve the positions of WTHOR games with few empties exactly (and one other child of each), as labels for
    /// `fit-eval --labels`. Saves as it goes; run again with the same settings to resume.
    LabelEndgames {
        /// WTHOR game files.
        #[arg(num_args = 1.., required = true)]
        wthor: Vec<PathBuf>,
        /// The label file to write (or resume).
        #[arg(long)]
        out: PathBuf,
        /// Label every N-th game of the files.
        #[arg(long, default_value_t = 10)]
        every: u32,
        #[arg(long, default_value_t = 6)]
        min_empties: u8,
        #[arg(long, default_value_t = 18)]
        max_empties: u8,
        /// Seed for the other children.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Threads (one solver each; default: one per core).
        #[arg(long)]
        threads: Option<usize>,
    },
    /// Play self-play games into RUN/replay (resumes: games already there are not played again).
    Selfplay {
        /// The run directory.
        #[arg(long)]
        run: PathBuf,
        /// Games for this worker in total.
        #[arg(long, default_value_t = 64)]
        games: u64,
        /// Threads (one game each at a time).
        #[arg(long, default_value_t = 1)]
        threads: usize,
        /// Worker id: give each process sharing a run directory its own.
        #[arg(long, default_value_t = 0)]
        worker: u32,
        /// Config file (default: RUN/config.toml, else the embedded default).
        #[arg(long)]
        config: Option<PathBuf>,
    },
    /// Train a player from scratch (or continue): a self-play worker and the trainer as two processes sharing
    /// RUN, until the trainer reaches STEPS. Output of each in RUN/logs.
    Pipeline {
        #[arg(long)]
        run: PathBuf,
        #[arg(long, default_value_t = 2000)]
        steps: u64,
        /// Self-play threads (default: the cores of this machine).
        #[arg(long)]
        threads: Option<usize>,
        /// Config file (default: RUN/config.toml, else the embedded default).
        #[arg(long)]
        config: Option<PathBuf>,
    },
    /// Train the network of RUN on the replay window of RUN/replay; checkpoints go to RUN/models (resumes from
    /// the newest one).
    Train {
        #[arg(long)]
        run: PathBuf,
        /// Stop at this step (default: the config's max_steps; 0 there means never).
        #[arg(long)]
        steps: Option<u64>,
        /// Stop when there is nothing left to train on (the throttle or no data) instead of waiting.
        #[arg(long)]
        exit_when_starved: bool,
        /// Config file (default: RUN/config.toml, else the embedded default).
        #[arg(long)]
        config: Option<PathBuf>,
    },
    /// Turn WTHOR game files into replay shards in RUN/replay (policy target: the move played; value: the result).
    ImportWthor {
        /// WTHOR database files (.wtb).
        #[arg(required = true)]
        files: Vec<PathBuf>,
        #[arg(long)]
        run: PathBuf,
        #[arg(long, default_value_t = 500)]
        games_per_shard: usize,
    },
    /// Export a model for other frontends: safetensors, ONNX, a model card, and example inputs and outputs.
    Export {
        /// A model (`RUN/models/model-<step>.json` or `.bpk`), or a run directory (its newest model).
        #[arg(long)]
        model: PathBuf,
        #[arg(long)]
        out: PathBuf,
    },
    /// Play matches between agents and store every game in OUT (results.csv, games/*.ggf); resumes, playing only
    /// the games still missing, and agents can join later. Ends with the ratings.
    ///
    /// Agents are specs: random, greedy, positional:depth=N (alpha-beta on square weights and mobility),
    /// mcts:sims=N (pure MCTS, random rollouts), each optionally followed by +endgameK (perfect play from K empties).
    Arena {
        #[arg(long)]
        out: PathBuf,
        /// The agents of a round robin (with --gauntlet: the gauntlet agent's opponents).
        #[arg(long, num_args = 1.., required = true)]
        agents: Vec<String>,
        /// Play this agent against each of the others instead of a round robin.
        #[arg(long)]
        gauntlet: Option<String>,
        /// Games per pairing (rounded up to pairs: each opening with both colours).
        #[arg(long, default_value_t = 20)]
        games: u32,
        #[arg(long, default_value_t = 1)]
        threads: usize,
        #[command(flatten)]
        games_from: MatchArgs,
    },
    /// The Elo ratings of an arena directory (Bradley-Terry, 95% intervals widened for paired games): a table,
    /// DIR/ratings.csv and DIR/ratings.json.
    Ratings {
        dir: PathBuf,
        /// The player whose rating is fixed, and at what: NAME=ELO (default: random=0, else the first agent).
        #[arg(long)]
        anchor: Option<String>,
        /// Also print the likelihood of superiority of every player over every other.
        #[arg(long)]
        los: bool,
    },
    /// Sequential probability ratio test: game pairs of CANDIDATE against BASELINE until the log-likelihood ratio
    /// of "ELO1 stronger" against "ELO0 stronger" crosses a bound; games stored in OUT (a rerun continues), the
    /// decision in OUT/sprt.json.
    Sprt {
        #[arg(long)]
        out: PathBuf,
        #[arg(long)]
        candidate: String,
        #[arg(long)]
        baseline: String,
        #[arg(long, default_value_t = 0.0)]
        elo0: f64,
        #[arg(long, default_value_t = 30.0)]
        elo1: f64,
        #[arg(long, default_value_t = 0.05)]
        alpha: f64,
        #[arg(long, default_value_t = 0.05)]
        beta: f64,
        #[command(flatten)]
        games_from: MatchArgs,
        /// Stop undecided after this many pairs.
        #[arg(long, default_value_t = 100_000)]
        max_pairs: u64,
    },
    /// Benchmarks: random games per second, perft leaves per second.
    Bench {
        #[command(subcommand)]
        what: bench::BenchCommand,
    },
}

fn main() -> Result<()> {
    // Output piped into `head` and the like ends the process quietly, as it does for other Unix tools, instead of
    // a panic in `println!` once the reader has gone.
    sigpipe::reset();
    let cli = Cli::parse();
    match cli.command {
        Command::Perft { depth, convention, rules, kernel } => {
            perft_replay_show::perft(depth, convention, &rules, kernel)
        }
        Command::Replay { file, ggf, wthor, rules } => perft_replay_show::replay(file.as_deref(), ggf, &wthor, rules),
        Command::Show { position, rules } => perft_replay_show::show(&position.join(" "), rules),
        Command::Solve { position, file, all_moves, one_best, wld, time, nodes, rules, threads, table_mb, pv } => {
            let mode = match (all_moves, one_best, wld) {
                (true, _, _) => othello_core::solve::Mode::AllMoves,
                (_, true, _) => othello_core::solve::Mode::BestMove,
                (_, _, true) => othello_core::solve::Mode::WinDrawLoss,
                _ => othello_core::solve::Mode::Exact,
            };
            let limits = othello_core::solve::Limits { nodes, time: time.map(std::time::Duration::from_secs_f64) };
            let options = solve::SolveOptions {
                mode,
                limits,
                threads,
                table_bytes: (table_mb as usize) << 20,
                principal_variation: pv,
            };
            solve::run(&position.join(" "), file.as_deref(), rules, options)
        }
        Command::Oracle { agent, empties, positions, wthor, seed, threads } => {
            oracle::run(&agent, empties, positions, &wthor, seed, threads)
        }
        Command::LabelEndgames { wthor, out, every, min_empties, max_empties, seed, threads } => {
            let run = othello_core::pattern::label::LabelRun { every, min_empties, max_empties, seed, games_done: 0 };
            let threads = threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
            label_endgames::run(&wthor, &out, run, threads)
        }
        Command::FitEval { wthor, labels, out, epochs, prior } => {
            fit_eval::run(&wthor, labels.as_deref(), &out, epochs, prior)
        }
        Command::Selfplay { run, games, threads, worker, config } => {
            selfplay::run(&RunDir::new(run), games, threads, worker, config.as_deref())
        }
        Command::Pipeline { run, steps, threads, config } => {
            let threads = threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
            pipeline::run(&RunDir::new(run), steps, threads, config.as_deref())
        }
        Command::Train { run, steps, exit_when_starved, config } => {
            train::run(&RunDir::new(run), config.as_deref(), steps, exit_when_starved)
        }
        Command::ImportWthor { files, run, games_per_shard } => {
            import_wthor::run(&files, &RunDir::new(run), games_per_shard)
        }
        Command::Export { model, out } => export_model::run(&model, &out),
        Command::Arena { out, agents, gauntlet, games, threads, games_from: m } => {
            let options = arena::ArenaOptions {
                out: &out,
                agents: &agents,
                gauntlet: gauntlet.as_deref(),
                games,
                threads,
                rules: m.rules,
                seed: m.seed,
                opening_plies: m.opening_plies,
            };
            arena::arena(options)
        }
        Command::Ratings { dir, anchor, los } => {
            let anchor = match anchor.as_deref() {
                Some(text) => {
                    let (name, elo) = text.rsplit_once('=').unwrap_or((text, "0"));
                    let elo =
                        elo.parse::<f64>().map_err(|_| anyhow::anyhow!("--anchor {text}: '{elo}' is not a number"))?;
                    Some((name, elo))
                }
                None => None,
            };
            arena::ratings(&dir, anchor, los)
        }
        Command::Sprt { out, candidate, baseline, elo0, elo1, alpha, beta, games_from: m, max_pairs } => {
            let test = othello_eval::sprt::Sprt::new(elo0, elo1, alpha, beta)?;
            let options = arena::SprtOptions {
                out: &out,
                candidate: &candidate,
                baseline: &baseline,
                test,
                rules: m.rules,
                seed: m.seed,
                opening_plies: m.opening_plies,
                max_pairs,
            };
            arena::sprt(options)
        }
        Command::Bench { what } => bench::run(what),
    }
}
