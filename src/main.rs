//! The `othello-zero` command line: parses arguments and calls the library crates.

mod commands;
mod input;
mod run_config;

use std::ffi::OsString;
use std::path::PathBuf;

use anyhow::Result;
use clap::{CommandFactory, Parser, Subcommand};
use commands::{
    arena, average_models, bench, engine_modes, export_model, fit_eval, import_wthor, label_endgames, openings, oracle,
    perft_replay_show, run, selfplay, solve, train,
};
use othello_run::RunDir;

/// `solve --table-mb`'s default: the solver's own.
const TABLE_MB: u32 = (othello_core::solve::TABLE_BYTES >> 20) as u32;

/// The trainer's and the network's tensors are freed and allocated again every step; glibc's malloc returns such
/// large blocks to the kernel each time, and the page faults that zero them again took a quarter of a training step.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(name = "othello-zero", version, about = "Othello self-play research harness")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// The colour a person plays in `play`.
#[derive(Clone, Copy, clap::ValueEnum)]
enum PersonColor {
    Black,
    White,
}

/// How the games of `arena` and `sprt` are set up.
#[derive(clap::Args)]
struct MatchArgs {
    /// Rule variants, comma-separated (see `perft --help`; default othello; `evaluate`: the run's own).
    #[arg(long)]
    rules: Option<othello_core::Rules>,
    /// Seeds the openings and every agent of every game.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Where each pair starts: `shipped` (the repository's balanced set for 8x8 and 6x6 Othello, else random
    /// plies), `random` (--opening-plies seeded random moves), or an openings file (one transcript per line).
    #[arg(long, default_value = "shipped")]
    openings: String,
    /// Random plies from the start that make each pair's opening, where openings are random.
    #[arg(long, default_value_t = 4)]
    opening_plies: u32,
}

impl MatchArgs {
    fn rules(&self) -> othello_core::Rules {
        self.rules.unwrap_or_default()
    }

    fn setup(&self, threads: usize) -> Result<arena::MatchSetup> {
        self.setup_with(self.rules(), threads)
    }

    /// The setup of games under `rules`, which a `--rules` given must agree with.
    fn setup_with(&self, rules: othello_core::Rules, threads: usize) -> Result<arena::MatchSetup> {
        if let Some(asked) = self.rules.filter(|asked| *asked != rules) {
            anyhow::bail!("--rules {asked}: these games are played under {rules} (the run's config)");
        }
        Ok(arena::MatchSetup { rules, seed: self.seed, openings: self.opening_source(&rules)?, threads })
    }

    fn opening_source(&self, rules: &othello_core::Rules) -> Result<othello_eval::openings::OpeningSource> {
        use othello_eval::openings::{OpeningSource, Openings};
        Ok(match self.openings.as_str() {
            "shipped" => OpeningSource::default_for(rules, self.opening_plies),
            "random" => OpeningSource::RandomPlies(self.opening_plies),
            path => {
                let text = std::fs::read_to_string(path).map_err(|e| anyhow::anyhow!("--openings {path}: {e}"))?;
                OpeningSource::Set(Openings::parse(&text, *rules).map_err(|e| anyhow::anyhow!("{path}: {e}"))?)
            }
        })
    }
}

#[derive(Subcommand)]
enum Command {
    /// Count the move sequences of DEPTH plies (perft).
    Perft {
        /// Plies, at most 21: past that the count from the 8x8 start no longer fits 64 bits (and would take
        /// centuries).
        #[arg(value_parser = clap::value_parser!(u32).range(0..=21))]
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
    /// Replay games (one transcript per line) and print each game's final disc counts `BLACK WHITE`, or the
    /// game's error on its line; the exit status is 1 when any game is an error.
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
        /// Rule variants, comma-separated (see `perft --help`; default othello at the board's size).
        #[arg(long)]
        rules: Option<othello_core::Rules>,
    },
    /// Solve positions exactly: best moves, score, nodes and time.
    Solve {
        /// A board string with the side to move, or a transcript (`""`: the start); or else `--file`.
        #[arg(allow_hyphen_values = true, required_unless_present = "file", conflicts_with = "file")]
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
        #[arg(long, value_parser = seconds)]
        time: Option<std::time::Duration>,
        /// Give up on a position after this many nodes.
        #[arg(long)]
        nodes: Option<u64>,
        /// Rule variants, comma-separated (see `perft --help`; default othello at the board's size).
        #[arg(long)]
        rules: Option<othello_core::Rules>,
        /// Threads: a single position is searched on all of them, sharing one table (young brothers wait); a file's
        /// positions are solved this many at a time, one thread and table each (per-position times are then those
        /// of a thread sharing the machine; with fewer positions than threads, each is searched on several).
        #[arg(long, value_parser = thread_count, default_value_t = 1)]
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
    /// Measure an agent against the exact solver on positions with E empties from WTHOR games: its optimal-move
    /// rate and mean disc loss, with 95% intervals.
    Oracle {
        /// An agent spec (see `arena --help`), e.g. greedy+endgame14 or net:model=runs/a,sims=200.
        #[arg(long, default_value = "greedy")]
        agent: String,
        #[arg(long, default_value_t = 14)]
        empties: u32,
        #[arg(long, value_parser = positive::<usize>, default_value_t = 200)]
        positions: usize,
        /// WTHOR game files to sample from.
        #[arg(long, num_args = 1.., required = true)]
        wthor: Vec<PathBuf>,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Positions solved at a time, one thread each.
        #[arg(long, value_parser = thread_count, default_value_t = 1)]
        threads: usize,
    },
    /// How often a player's moves in an arena directory's games (or a run's RUN/eval) were optimal: every position
    /// after the opening where it had a choice and at most MAX_EMPTIES empties, solved exactly; in all and by four
    /// empties at a time. Without --player, every player's: a table, OUT/optimal-moves.csv, and
    /// OUT/optimal-moves.svg (the runs' checkpoints against step, time and positions, several runs on one picture).
    OptimalMoves {
        /// Arena directories or run directories (a game stored by two counts once).
        #[arg(long, required = true, num_args = 1..)]
        games: Vec<PathBuf>,
        /// The player's spec as the arena stored it (see `ratings`); without it, every player.
        #[arg(long)]
        player: Option<String>,
        /// Where the table and the picture go (default: the games' directory for one, else
        /// ./optimal-moves-comparison).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Instead of each player's own moves, one set of N positions for all: drawn (seeded) from the games
        /// between players without a model (a run's fixed ladder), each player asked for its move in each. Runs
        /// rated on one ladder share these positions, whatever their checkpoints met. Their exact values are kept
        /// in OUT/fixed-positions.csv, read back when the same positions are drawn again.
        #[arg(long, value_parser = positive::<usize>)]
        fixed_positions: Option<usize>,
        #[arg(long, default_value_t = 20)]
        max_empties: u32,
        /// Positions solved at a time, one thread each.
        #[arg(long, value_parser = thread_count, default_value_t = 1)]
        threads: usize,
    },
    /// How often a network's most probable legal move is the move played in WTHOR games (give games it was not
    /// trained on), with a 95% interval and a random legal move's rate beside it.
    Agreement {
        /// A checkpoint, or a run directory (its newest checkpoint).
        #[arg(long)]
        model: String,
        /// WTHOR game files.
        #[arg(long, num_args = 1.., required = true)]
        wthor: Vec<PathBuf>,
        /// Use at most this many games (the files' first).
        #[arg(long, value_parser = positive::<usize>, default_value_t = 2000)]
        games: usize,
    },
    /// Serve an agent as an NBoard engine (protocol 2) on standard input and output.
    Nboard {
        /// An agent spec (see `arena --help`).
        #[arg(long)]
        agent: String,
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Serve an agent as a GTP engine (Edax's Othello commands) on standard input and output.
    Gtp {
        /// An agent spec (see `arena --help`).
        #[arg(long)]
        agent: String,
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Play against an agent in the terminal: the board after every move, your moves typed as squares (such as
    /// d3), `undo` to take your last move back, `quit` to stop; the game's transcript at the end.
    Play {
        /// Your opponent, an agent spec (see `arena --help`), such as net:model=runs/quickstart,sims=400.
        #[arg(long)]
        agent: String,
        /// The colour you play.
        #[arg(long, value_enum, default_value = "black")]
        color: PersonColor,
        /// A transcript of the moves the game starts after (empty: the start).
        #[arg(long, default_value = "")]
        from: String,
        #[arg(long, default_value = "othello")]
        rules: othello_core::Rules,
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Write a balanced openings file: every distinct position (up to symmetry) PLIES moves from the start whose
    /// value is within MAX_VALUE discs of even (valued by the pattern engine on 8x8 Othello, else exactly).
    Openings {
        #[arg(long, default_value = "othello")]
        rules: othello_core::Rules,
        #[arg(long, default_value_t = 6)]
        plies: u32,
        #[arg(long, default_value_t = 2.0, value_parser = not_negative)]
        max_value: f64,
        /// The pattern engine's depth.
        #[arg(long, default_value_t = 10)]
        depth: u32,
        /// The exact solver's time per position (positions it cannot solve in time are left out).
        #[arg(long, default_value = "10", value_parser = seconds)]
        seconds: std::time::Duration,
        /// Reach this many distinct positions by seeded random games instead of listing every one (for deep
        /// openings, where the list is too long to value).
        #[arg(long)]
        sample: Option<usize>,
        #[arg(long)]
        out: PathBuf,
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
        #[arg(long, default_value_t = 16.0, value_parser = not_negative)]
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
        #[arg(long, value_parser = positive::<u32>, default_value_t = 10)]
        every: u32,
        #[arg(long, default_value_t = 6)]
        min_empties: u8,
        #[arg(long, default_value_t = 18)]
        max_empties: u8,
        /// Seed for the other children.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Threads (one solver each; default: one per core).
        #[arg(long, value_parser = thread_count)]
        threads: Option<usize>,
    },
    /// Play self-play games into RUN/replay (resumes: games already there are not played again).
    Selfplay {
        /// The run directory.
        #[arg(long)]
        run: PathBuf,
        /// Games for this worker in total (games already in RUN/replay count); 0: until stopped.
        #[arg(long, value_parser = worker_games, default_value_t = 64)]
        games: u64,
        /// Threads (one game each at a time).
        #[arg(long, value_parser = thread_count, default_value_t = 1)]
        threads: usize,
        /// Worker id: give each process sharing a run directory its own.
        #[arg(long, default_value_t = 0)]
        worker: u32,
        /// Config file of a new run (default: the embedded one); a run keeps its RUN/config.toml, and a different one
        /// is refused.
        #[arg(long)]
        config: Option<PathBuf>,
    },
    /// The main job: train a player from scratch (or continue one) and rate it as it learns. Self-play, the
    /// trainer and the evaluation stage run as three processes sharing RUN; a status line shows games, positions/s,
    /// step, losses and the newest checkpoint's Elo. Stops when the trainer reaches its steps or the time is up,
    /// then rates the last checkpoint (and the final player, with `[eval] final_player_simulations`):
    /// RUN/eval/ratings.svg draws Elo against step and wall time. Ctrl-C or `kill -9`, and a rerun resumes every
    /// stage. With no config: the embedded quickstart (6x6: 11 minutes of training, about 13 in all on 2 cores).
    Run {
        #[arg(long, default_value = "runs/quickstart")]
        run: PathBuf,
        /// Config file of a new run (default: the embedded quickstart); a run keeps its RUN/config.toml, and a
        /// different one is refused.
        #[arg(long)]
        config: Option<PathBuf>,
        /// Stop at this trainer step (default: the config's max_steps; 0: no limit).
        #[arg(long)]
        steps: Option<u64>,
        /// Stop after this many minutes of this stretch (default: what the run's checkpoints leave of the config's
        /// minutes; 0: no limit).
        #[arg(long, value_parser = minutes)]
        minutes: Option<f64>,
        /// Cores in all (default: this machine's); the evaluation takes the config's [eval] threads of them.
        #[arg(long, value_parser = thread_count)]
        threads: Option<usize>,
        /// Begin a fresh run from this checkpoint's weights (a network pre-trained on WTHOR, say: `import-wthor`
        /// and `train` in a run of its own) instead of a random initialisation. The run is labelled a warm start
        /// wherever it is rated.
        #[arg(long)]
        warm_start: Option<PathBuf>,
    },
    /// Train the network of RUN on the replay window of RUN/replay; checkpoints go to RUN/models (resumes from
    /// the newest one).
    Train {
        #[arg(long)]
        run: PathBuf,
        /// Stop at this step (default: the config's max_steps; 0: no limit).
        #[arg(long)]
        steps: Option<u64>,
        /// Stop after this many minutes, with a checkpoint of the last step (0: no limit, as for `run`).
        #[arg(long, value_parser = minutes)]
        minutes: Option<f64>,
        /// Stop when there is nothing left to train on (the throttle or no data) instead of waiting.
        #[arg(long)]
        exit_when_starved: bool,
        /// Config file of a new run (default: the embedded one); a run keeps its RUN/config.toml, and a different one
        /// is refused.
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
        #[arg(long, value_parser = positive::<usize>, default_value_t = 500)]
        games_per_shard: usize,
    },
    /// Average checkpoints' weights (batch-norm statistics included) into one checkpoint in OUT: a stochastic
    /// weight average. A run's late checkpoints wander around a minimum with the noise of each step, and their
    /// mean sits nearer it (docs/BENCHMARKS.md). Its sidecar is the newest's, naming the checkpoints averaged;
    /// play or export it as any checkpoint (`net:model=OUT`).
    Average {
        /// Checkpoints (`model-<step>.json` or `.bpk`) of one architecture, or run or models directories (their
        /// newest --last).
        #[arg(required = true)]
        models: Vec<PathBuf>,
        /// From each directory among MODELS, its newest this many checkpoints.
        #[arg(long, value_parser = positive::<usize>, default_value_t = 8)]
        last: usize,
        /// A directory for the average (not a run's models: it would stand beside the checkpoints as trained).
        #[arg(long)]
        out: PathBuf,
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
    /// Agents are specs, NAME[:KEY=VALUE,...][+endgameK]:
    ///   random; greedy (most flips); positional:depth=N (alpha-beta on square weights and mobility);
    ///   pattern:depth=N or pattern:time=S[,exact=K] (PVS on the WTHOR-fitted pattern evaluation, 8x8 only);
    ///   mcts:sims=N (pure MCTS, random rollouts); policy:model=M[,temperature=T] (a network's raw policy);
    ///   net:model=M[,sims=N][,gumbel[=K]][,score=W][,qscale=C][,interior=puct|gumbel][,device=D] (the network
    ///   with MCTS; M a checkpoint or a run directory);
    ///   engine:cmd="PROGRAM ARGS",protocol=nboard|gtp[,time=S][,startup=S] (an external engine, S seconds a move,
    ///   default 10, and startup seconds more for its first, default 20; misbehaviour forfeits);
    ///   +endgameK after any of them: perfect play from K empties.
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
        #[arg(long, value_parser = positive::<u32>, default_value_t = 20)]
        games: u32,
        #[arg(long, value_parser = thread_count, default_value_t = 1)]
        threads: usize,
        #[command(flatten)]
        games_from: MatchArgs,
    },
    /// Rate a training run's checkpoints in one command: each (network + MCTS) in a gauntlet against the checkpoint
    /// before it and the fixed ladder, from the rung nearest that checkpoint's Elo up and down until it wins or loses
    /// every game of a pairing; games in RUN/eval (resumable), then the ratings and RUN/eval/ratings.svg
    /// (Elo against training step, wall time and self-play positions) and the newest Elo in TensorBoard
    /// (RUN/logs/eval); with [eval] optimal_moves_empties, every player's moves against the solver, each
    /// checkpoint's as it is rated (RUN/eval/optimal-moves.csv and .svg); with [eval] final_player_simulations and
    /// without --watch, the newest checkpoint once more with a search of that size. Unset flags come from the run
    /// config's [eval].
    Evaluate {
        #[arg(long)]
        run: PathBuf,
        /// The fixed players (agent specs; see `arena --help`).
        #[arg(long, num_args = 1..)]
        ladder: Option<Vec<String>>,
        /// Games per pairing.
        #[arg(long, value_parser = positive::<u32>)]
        games: Option<u32>,
        /// The checkpoints' MCTS simulations per move (with Gumbel's root where the run's self-play uses it).
        #[arg(long, value_parser = positive::<u32>)]
        sims: Option<u32>,
        /// Rate every N-th checkpoint (and the newest; watching, the newest first and the every-th one a pass).
        #[arg(long, value_parser = positive::<usize>)]
        every: Option<usize>,
        #[arg(long, value_parser = thread_count)]
        threads: Option<usize>,
        /// Keep watching RUN/models, rating each new checkpoint (the evaluation stage of `run`).
        #[arg(long)]
        watch: bool,
        /// Config file of a new run (default: the embedded one); a run keeps its RUN/config.toml, and a different one
        /// is refused.
        #[arg(long)]
        config: Option<PathBuf>,
        #[command(flatten)]
        games_from: MatchArgs,
    },
    /// The Elo ratings of an arena directory or a run's RUN/eval (Bradley-Terry, 95% intervals widened for paired
    /// games): a table, DIR/ratings.csv, DIR/ratings.json, and DIR/ratings.svg when checkpoints were rated. Given
    /// several runs, rates them together on their common fixed ladder and draws every run's Elo on one picture
    /// (against step, wall time and self-play positions): the comparison of two training setups.
    Ratings {
        #[arg(required = true, num_args = 1..)]
        dirs: Vec<PathBuf>,
        /// Where the ratings and the picture go (default: DIR itself for one directory, else ./ratings-comparison).
        #[arg(long)]
        out: Option<PathBuf>,
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
        #[arg(long, value_parser = positive::<u64>, default_value_t = 100_000)]
        max_pairs: u64,
    },
    /// Benchmarks: random games per second, perft leaves per second.
    Bench {
        #[command(subcommand)]
        what: bench::BenchCommand,
    },
}

/// A count given on the command line: a whole number, 1 or more (a zero count would do nothing, or nothing useful).
fn positive<T: std::str::FromStr + Default + PartialEq>(text: &str) -> Result<T, String> {
    match text.parse::<T>() {
        Ok(n) if n != T::default() => Ok(n),
        Ok(_) => Err("expected 1 or more".into()),
        Err(_) => Err(format!("'{text}' is not a whole number")),
    }
}

/// A time limit in minutes: 0 (no limit) to a year.
fn minutes(text: &str) -> Result<f64, String> {
    use othello_run::config_check::MAX_MINUTES;
    match text.parse::<f64>() {
        Ok(x) if (0.0..=MAX_MINUTES).contains(&x) => Ok(x),
        Ok(_) => Err(format!("expected 0 (no limit) to {MAX_MINUTES} minutes (a year)")),
        Err(_) => Err(format!("'{text}' is not a number")),
    }
}

/// A thread count: 1 or more, at most `MAX_THREADS` (more would only fail to start, or wait on each other).
fn thread_count(text: &str) -> Result<usize, String> {
    use othello_run::config_check::MAX_THREADS;
    match positive::<usize>(text)? {
        n if n <= MAX_THREADS => Ok(n),
        _ => Err(format!("expected at most {MAX_THREADS} threads")),
    }
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

/// A number that is finite and not negative (minutes, a disc margin, a prior's weight).
fn not_negative(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(x) if x.is_finite() && x >= 0.0 => Ok(x),
        Ok(_) => Err("expected a number, 0 or more".into()),
        Err(_) => Err(format!("'{text}' is not a number")),
    }
}

/// Seconds, more than 0 (a time limit, a measurement's length).
fn seconds(text: &str) -> Result<std::time::Duration, String> {
    match text.parse::<f64>() {
        Ok(x) if x > 0.0 => std::time::Duration::try_from_secs_f64(x).map_err(|_| "too many seconds".into()),
        Ok(_) => Err("expected seconds, more than 0".into()),
        Err(_) => Err(format!("'{text}' is not a number")),
    }
}

/// Parses the command line. A board string may start with `-` (an empty square), so `show` and `solve` take values that
/// start with a hyphen as their position, and clap then reads the flags written after a position as part of it; such
/// flags, with their values, are moved in front of the position and the line is parsed again.
fn parse_cli(args: Vec<OsString>) -> Cli {
    let cli = Cli::parse_from(&args);
    let (name, position) = match &cli.command {
        Command::Show { position, .. } => ("show", position),
        Command::Solve { position, .. } => ("solve", position),
        _ => return cli,
    };
    let command = Cli::command();
    let Some(subcommand) = command.find_subcommand(name) else { return cli };
    let flag = |token: &str| {
        let rest = token.strip_prefix("--")?;
        let (long, value_given) = rest.split_once('=').map_or((rest, false), |(long, _)| (long, true));
        let arg = subcommand.get_arguments().find(|arg| arg.get_long() == Some(long))?;
        Some(arg.get_action().takes_values() && !value_given)
    };
    let mut flags = Vec::new();
    let mut position_tokens = Vec::new();
    let mut tokens = position.iter();
    while let Some(token) = tokens.next() {
        match flag(token) {
            Some(takes_next) => {
                flags.push(token);
                if takes_next {
                    flags.extend(tokens.next());
                }
            }
            None => position_tokens.push(token),
        }
    }
    // The position's tokens are the line's last ones: a value that may start with a hyphen takes every token after it.
    let start = args.len() - position.len();
    let at_end = args[start..].iter().zip(position).all(|(arg, token)| arg == token.as_str());
    // After `--` every token is the position's, as the user asked.
    let separated = args[..start].iter().any(|arg| arg == "--");
    if flags.is_empty() || !at_end || separated {
        return cli;
    }
    let mut reordered = args[..start].to_vec();
    reordered.extend(flags.into_iter().chain(position_tokens).map(OsString::from));
    Cli::parse_from(reordered)
}

/// A failure is one line, `Error: ` and the error with its causes, whether or not RUST_BACKTRACE asks for a
/// backtrace: a user's mistake is not a crash (a panic, a real bug, still shows its backtrace).
fn main() -> std::process::ExitCode {
    match run_command() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("Error: {error:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn run_command() -> Result<()> {
    run::exit_with_parent();
    let cli = parse_cli(std::env::args_os().collect());
    // Output piped into `head` and the like ends the process quietly, as it does for other Unix tools, instead of
    // a panic in `println!` once the reader has gone. Not where an agent may be an external engine: an engine that
    // closes its pipe would end the whole process, where it should forfeit its game.
    if matches!(
        cli.command,
        Command::Perft { .. } | Command::Replay { .. } | Command::Show { .. } | Command::Solve { .. }
    ) {
        sigpipe::reset();
    }
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
            let limits = othello_core::solve::Limits { nodes, time };
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
        Command::Agreement { model, wthor, games } => oracle::agreement(&model, &wthor, games),
        Command::OptimalMoves { games, player, out, fixed_positions, max_empties, threads } => {
            let out = arena::output_dir(out, &games, "optimal-moves-comparison");
            oracle::optimal_moves(oracle::OptimalMovesOptions {
                dirs: &games,
                out: &out,
                player: player.as_deref(),
                max_empties,
                fixed_positions,
                threads,
            })
        }
        Command::Openings { rules, plies, max_value, depth, seconds, sample, out } => {
            openings::run(openings::OpeningsOptions { rules, plies, max_value, depth, seconds, sample, out: &out })
        }
        Command::Nboard { agent, seed } => engine_modes::nboard(&agent, seed),
        Command::Gtp { agent, seed } => engine_modes::gtp(&agent, seed),
        Command::Play { agent, color, from, rules, seed } => {
            let color = match color {
                PersonColor::Black => othello_core::Color::Black,
                PersonColor::White => othello_core::Color::White,
            };
            engine_modes::play(&agent, color, &from, rules, seed)
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
        Command::Run { run, config, steps, minutes, threads, warm_start } => {
            let threads = threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
            let run = RunDir::new(run);
            let warm_start = warm_start.as_deref();
            run::run(run::RunOptions { run: &run, config: config.as_deref(), steps, minutes, threads, warm_start })
        }
        Command::Train { run, steps, minutes, exit_when_starved, config } => {
            train::run(&RunDir::new(run), config.as_deref(), steps, minutes, exit_when_starved)
        }
        Command::ImportWthor { files, run, games_per_shard } => {
            import_wthor::run(&files, &RunDir::new(run), games_per_shard)
        }
        Command::Average { models, last, out } => average_models::run(&models, last, &out),
        Command::Export { model, out } => export_model::run(&model, &out),
        Command::Arena { out, agents, gauntlet, games, threads, games_from: m } => {
            let setup = m.setup(threads)?;
            arena::arena(arena::ArenaOptions {
                out: &out,
                agents: &agents,
                gauntlet: gauntlet.as_deref(),
                games,
                setup,
            })
        }
        Command::Evaluate { run, ladder, games, sims, every, threads, watch, config, games_from: m } => {
            let config = run_config::RunConfig::for_existing_run(&RunDir::new(&run), config.as_deref())?;
            let eval = config.eval.clone();
            let ladder = ladder.unwrap_or(eval.ladder);
            let setup = m.setup_with(config.rules()?, threads.unwrap_or(eval.threads))?;
            arena::evaluate(arena::EvaluateOptions {
                run: &run,
                ladder: &ladder,
                games: games.unwrap_or(eval.games),
                simulations: sims.unwrap_or(eval.simulations),
                search: config.player_search(),
                every: every.unwrap_or(eval.every),
                gating: eval.gating.then(|| arena::Gating {
                    elo1: eval.gating_elo,
                    max_pairs: eval.gating_pairs,
                    tested: Default::default(),
                }),
                setup,
                watch,
                optimal_moves_empties: eval.optimal_moves_empties,
                optimal_moves_positions: (eval.optimal_moves_positions > 0).then_some(eval.optimal_moves_positions),
                final_player_simulations: eval.final_player_simulations,
            })
        }
        Command::Ratings { dirs, out, anchor, los } => {
            let anchor = match anchor.as_deref() {
                Some(text) => {
                    let (name, elo) = text.rsplit_once('=').unwrap_or((text, "0"));
                    let elo = elo
                        .parse::<f64>()
                        .ok()
                        .filter(|e| e.is_finite())
                        .ok_or_else(|| anyhow::anyhow!("--anchor {text}: '{elo}' is not a number"))?;
                    Some((name, elo))
                }
                None => None,
            };
            let out = arena::output_dir(out, &dirs, "ratings-comparison");
            arena::ratings(&dirs, &out, anchor, los).map(drop)
        }
        Command::Sprt { out, candidate, baseline, elo0, elo1, alpha, beta, games_from: m, max_pairs } => {
            let test = othello_eval::sprt::Sprt::new(elo0, elo1, alpha, beta)?;
            let options = arena::SprtOptions {
                out: &out,
                candidate: &candidate,
                baseline: &baseline,
                test,
                rules: m.rules(),
                seed: m.seed,
                openings: m.opening_source(&m.rules())?,
                max_pairs,
            };
            arena::sprt(options).map(drop)
        }
        Command::Bench { what } => bench::run(what),
    }
}
