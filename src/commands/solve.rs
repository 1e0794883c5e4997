//! `solve`: one position from the command line, or every line of a problem file, with live progress.

use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Instant;

use anyhow::{Context, Result};
use othello_core::problem::Problem;
use othello_core::solve::{solve_many, Limits, Mode, Progress, Solution, SolveError, Solver, Stage};
use othello_core::{Move, Position, Rules};

use crate::input::parse_position;
use crate::progress::ProgressDisplay;

/// The display, also where a thread that held it panicked (it only draws).
fn lock(display: &Mutex<ProgressDisplay>) -> MutexGuard<'_, ProgressDisplay> {
    display.lock().unwrap_or_else(PoisonError::into_inner)
}

/// `solve --table-mb`'s default: the solver's own.
const TABLE_MB: u32 = (othello_core::solve::TABLE_BYTES >> 20) as u32;

/// Solve positions exactly: best moves, score, nodes and time.
#[derive(clap::Args)]
pub struct SolveArgs {
    /// A board string with the side to move, or a transcript (`""`: the start); or else `--file`.
    #[arg(allow_hyphen_values = true, required_unless_present = "file", conflicts_with = "file")]
    pub position: Vec<String>,
    /// A file of positions, one per line: the FFO suite's format (`<board> <side> [<best> <score> <id>]`) or Edax's
    /// `.obf` (`<board> <side>; <move>:<score>; ...`, every top-scored move a best one).
    #[arg(long)]
    file: Option<std::path::PathBuf>,
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
    #[arg(long, value_parser = crate::flags::seconds)]
    time: Option<std::time::Duration>,
    /// Give up on a position after this many nodes.
    #[arg(long)]
    nodes: Option<u64>,
    #[arg(long, help = crate::flags::rules_help!(" (default: othello at the board's size)"))]
    rules: Option<Rules>,
    /// Threads: a single position is searched on all of them, sharing one table (young brothers wait); a file's
    /// positions are solved this many at a time, one thread and table each (per-position times are then those of a
    /// thread sharing the machine; with fewer positions than threads, each is searched on several).
    #[arg(long, value_parser = crate::flags::thread_count, default_value_t = 1)]
    threads: usize,
    /// The transposition table's size in MB (per solver; 1 to 16384), rounded down to a power of two. The default
    /// suits the FFO suite; a position with many more empties may gain from a larger one.
    #[arg(long, default_value_t = TABLE_MB, value_parser = clap::value_parser!(u32).range(1..=16384))]
    table_mb: u32,
    /// Also print a line of perfect play for both sides to the end of the game (its search is not counted in the
    /// nodes and time printed; the limits cut it short).
    #[arg(long, conflicts_with = "wld")]
    pv: bool,
}

pub fn solve(args: SolveArgs) -> Result<()> {
    let mode = match (args.all_moves, args.one_best, args.wld) {
        (true, _, _) => Mode::AllMoves,
        (_, true, _) => Mode::BestMove,
        (_, _, true) => Mode::WinDrawLoss,
        _ => Mode::Exact,
    };
    let options = SolveOptions {
        mode,
        limits: Limits { nodes: args.nodes, time: args.time },
        threads: args.threads,
        table_bytes: (args.table_mb as usize) << 20,
        principal_variation: args.pv,
    };
    solve_text_or_file(&args.position.join(" "), args.file.as_deref(), args.rules, options)
}

/// How `solve` searches, from its flags.
pub struct SolveOptions {
    pub mode: Mode,
    pub limits: Limits,
    pub threads: usize,
    pub table_bytes: usize,
    /// Print a line of perfect play after each solution.
    pub principal_variation: bool,
}

impl SolveOptions {
    /// Sets a solver up as the options say (its threads aside).
    fn setup(&self, solver: &mut Solver) {
        solver.set_table_bytes(self.table_bytes);
        solver.set_principal_variation(self.principal_variation);
    }
}

/// `solve`: one position from the command line, or every line of a problem file (on `threads` threads).
fn solve_text_or_file(text: &str, file: Option<&Path>, rules: Option<Rules>, options: SolveOptions) -> Result<()> {
    let SolveOptions { mode, limits, threads, .. } = options;
    let Some(path) = file else {
        let (pos, rules) = parse_position(text, rules)?;
        let mut solver = Solver::new();
        options.setup(&mut solver);
        solver.set_threads(threads);
        // The solver reports from its own thread: the display is shared with it.
        let display = Arc::new(Mutex::new(ProgressDisplay::new(None, "nodes")));
        lock(&display).tick_steadily();
        let shown = Arc::clone(&display);
        solver.on_progress(move |p| lock(&shown).set(p.nodes, None, &describe_progress(p)));
        let solution = solver.solve(&rules, &pos, mode, limits);
        drop(solver);
        if let Ok(display) = Arc::try_unwrap(display) {
            display.into_inner().unwrap_or_else(PoisonError::into_inner).clear();
        }
        print_solution("position", &solution?, mode, None);
        return Ok(());
    };
    let content = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let mut lines = Vec::new();
    for (n, line) in content.lines().enumerate() {
        let Some(problem) = Problem::parse(line) else { continue };
        let parsed = problem.map_err(anyhow::Error::from).and_then(|p| Ok((Rules::for_board(rules, p.size)?, p)));
        lines.push((format!("line {}", n + 1), parsed));
    }
    let jobs: Vec<(Rules, Position)> =
        lines.iter().filter_map(|(_, l)| l.as_ref().ok()).map(|(rules, p)| (*rules, p.position)).collect();
    let mut display = ProgressDisplay::new(Some(jobs.len() as u64), "positions");
    let started = Instant::now();
    let mut report =
        FileReport { file: path, lines: &lines, mode, next_line: 0, next_job: 0, totals: Totals::default() };
    let mut results = vec![None; jobs.len()];
    report.print_ready(&mut results);
    let mut nodes_so_far = 0;
    // Each problem in an empty table, as Edax's problem-file runs do: its figures then do not depend on the
    // file's order or on which thread took it.
    let setup = |solver: &mut Solver| {
        options.setup(solver);
        solver.set_fresh_table(true);
    };
    let mut done = 0;
    solve_many(&jobs, mode, limits, threads, setup, |i, result| {
        nodes_so_far += result.as_ref().map_or(0, |s| s.nodes);
        results[i] = Some(result);
        done += 1;
        let speed = format!("{:.1} M nodes/s", nodes_so_far as f64 / started.elapsed().as_secs_f64() / 1e6);
        display.set(done, None, &speed);
        display.suspend(|| report.print_ready(&mut results));
    });
    display.clear();
    let Totals { solved, failed, mismatched, nodes, seconds } = report.totals;
    let wall = match threads {
        1 => String::new(),
        n => format!("; {:.2} s elapsed on {n} threads", started.elapsed().as_secs_f64()),
    };
    let speed = nodes as f64 / seconds.max(1e-9) / 1e6;
    outln!(
        "solved {solved}, errors {failed}, disagreeing with the file {mismatched}; \
         {nodes} nodes in {seconds:.2} s ({speed:.1} M nodes/s){wall}"
    );
    if mismatched > 0 {
        anyhow::bail!("{mismatched} solutions disagree with the expected ones in {}", path.display());
    }
    if failed > 0 {
        anyhow::bail!("{}: {failed} lines not solved (see above)", path.display());
    }
    Ok(())
}

/// One line on what a solve is doing: the root pass and its window (or the moves tested after it), nodes, speed.
fn describe_progress(p: &Progress) -> String {
    let stage = match p.stage {
        Stage::Pass { confidence: Some(c), window: (lo, hi) } => format!("selective pass ({c}%) in ({lo:+}, {hi:+})"),
        Stage::Pass { confidence: None, window: (lo, hi) } => format!("exact pass in ({lo:+}, {hi:+})"),
        Stage::Moves { done, of } => format!("root moves: {done} of {of} tested"),
    };
    let secs = p.elapsed.as_secs_f64().max(1e-9);
    // The node count itself is the display's.
    format!("{stage}; {:.1} M nodes/s", p.nodes as f64 / secs / 1e6)
}

/// A problem file's lines printed in the file's order while their solutions arrive in any, and the totals.
struct FileReport<'a> {
    /// The problem file, named in each error.
    file: &'a Path,
    /// Each line's label and its rules and problem, or why it cannot be solved.
    lines: &'a [(String, Result<(Rules, Problem)>)],
    mode: Mode,
    next_line: usize,
    next_job: usize,
    totals: Totals,
}

/// What a problem file's solve printed, added up.
#[derive(Default)]
struct Totals {
    solved: u32,
    failed: u32,
    mismatched: u32,
    nodes: u64,
    seconds: f64,
}

impl FileReport<'_> {
    /// Prints the lines whose turn has come: those that did not parse, and solutions as far as they are known.
    fn print_ready(&mut self, results: &mut [Option<Result<Solution, SolveError>>]) {
        while let Some((label, line)) = self.lines.get(self.next_line) {
            match line {
                Err(e) => {
                    self.totals.failed += 1;
                    outln!("error: {}, {label}: {e:#}", self.file.display());
                }
                Ok((_, problem)) => {
                    let Some(result) = results.get_mut(self.next_job).and_then(Option::take) else { return };
                    self.next_job += 1;
                    match result {
                        Ok(solution) => {
                            let name = problem.id.as_deref().unwrap_or(label);
                            self.totals.mismatched += !print_solution(name, &solution, self.mode, Some(problem)) as u32;
                            self.totals.solved += 1;
                            self.totals.nodes += solution.nodes;
                            self.totals.seconds += solution.elapsed.as_secs_f64();
                        }
                        Err(e) => {
                            self.totals.failed += 1;
                            outln!("error: {}, {label}: {e}", self.file.display());
                        }
                    }
                }
            }
            self.next_line += 1;
        }
    }
}

/// Prints a solution; returns false when it disagrees with the expected score or best moves of `problem`.
fn print_solution(name: &str, s: &Solution, mode: Mode, problem: Option<&Problem>) -> bool {
    let moves = |m: &[Move]| m.iter().map(|m| m.to_string()).collect::<Vec<_>>().join(",");
    let secs = s.elapsed.as_secs_f64();
    let mut line = format!(
        "{name}: best {} score {:+} nodes {} time {secs:.3} s ({:.1} M nodes/s)",
        if s.best_moves.is_empty() { "-".to_string() } else { moves(&s.best_moves) },
        s.score,
        s.nodes,
        s.nodes as f64 / secs.max(1e-9) / 1e6
    );
    let mut ok = true;
    if let Some(p) = problem {
        if let Some(want) = p.score {
            ok &= want == s.score || (s.best_moves.is_empty() && s.move_scores.is_empty() && want.signum() == s.score);
        }
        if let (Some(want), false) = (&p.best_moves, s.best_moves.is_empty()) {
            let mut a: Vec<String> = want.iter().map(|m| m.to_string()).collect();
            let mut b: Vec<String> = s.best_moves.iter().map(|m| m.to_string()).collect();
            a.sort();
            b.sort();
            // One best move (`--one-best`) must be one of the file's; every best move must be all of them.
            ok &= if mode == Mode::BestMove { a.contains(&b[0]) } else { a == b };
        }
        line.push_str(if ok { "  [agrees]" } else { "  [DISAGREES with the file]" });
    }
    outln!("{line}");
    if !s.principal_variation.is_empty() {
        outln!("  pv {}", s.principal_variation.iter().map(|m| m.to_string()).collect::<Vec<_>>().join(" "));
    }
    for (mv, score) in &s.move_scores {
        outln!("  {mv} {score:+}");
    }
    ok
}
