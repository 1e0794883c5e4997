//! The game-engine commands: perft, replay, show.

use std::io::{BufRead, Read, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use othello_core::ggf::parse_ggf;
use othello_core::perft::perft_with;
use othello_core::solve::{solve_many, Limits, Mode, Problem, Progress, Solution, SolveError, Solver, Stage};
use othello_core::wthor::{WthorFile, WthorGame};
use othello_core::{Convention, Game, KernelKind, Move, Position, Rules, Status};

pub fn perft(depth: u32, convention: Convention, rules: &Rules, kernel: Option<KernelKind>) -> Result<()> {
    let kernel = kernel.unwrap_or_else(KernelKind::best);
    println!("{}", perft_with(kernel, rules, &rules.start_position(), depth, convention));
    Ok(())
}

/// Counts what `replay` saw, reported on standard error at the end.
#[derive(Default)]
struct Tally {
    games: usize,
    errors: usize,
    unfinished: usize,
}

impl Tally {
    /// Prints `BLACK WHITE` for a replayed game (scored by the rules when it is over) or the error.
    fn report(&mut self, out: &mut impl Write, game: Result<Game, String>) -> Result<()> {
        self.games += 1;
        match game {
            Ok(g) => {
                let (b, w) = if g.is_over() {
                    let o = g.outcome();
                    (o.black, o.white)
                } else {
                    self.unfinished += 1;
                    (g.position().black().count(), g.position().white().count())
                };
                writeln!(out, "{b} {w}")?;
            }
            Err(e) => {
                self.errors += 1;
                writeln!(out, "error: {e}")?;
            }
        }
        Ok(())
    }
}

pub fn replay(file: Option<&Path>, ggf: bool, wthor: &[PathBuf], rules: Rules) -> Result<()> {
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut tally = Tally::default();
    if !wthor.is_empty() {
        for path in wthor {
            let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
            match WthorFile::parse(&bytes) {
                Ok(f) => {
                    for (i, g) in f.games.iter().enumerate() {
                        let moves: Vec<Move> = g.moves.iter().map(|&s| Move::Play(s)).collect();
                        let game =
                            Game::replay(rules, &moves).map_err(|e| format!("{}: game {}: {e}", path.display(), i + 1));
                        tally.report(&mut out, game)?;
                    }
                }
                Err(e) => {
                    tally.errors += 1;
                    writeln!(out, "error: {}: {e}", path.display())?;
                }
            }
        }
    } else if ggf {
        let text = read_input(file)?;
        for record in parse_ggf(&text) {
            let game = record.and_then(|r| r.replay()).map_err(|e| e.to_string());
            tally.report(&mut out, game)?;
        }
    } else {
        let input: Box<dyn BufRead> = match file {
            Some(p) => Box::new(std::io::BufReader::new(
                std::fs::File::open(p).with_context(|| format!("opening {}", p.display()))?,
            )),
            None => Box::new(std::io::stdin().lock()),
        };
        for (n, line) in input.split(b'\n').enumerate() {
            let line = line.context("reading the transcripts")?;
            let text = String::from_utf8_lossy(&line);
            let game =
                Game::from_transcript(rules, text.trim_end_matches('\r')).map_err(|e| format!("line {}: {e}", n + 1));
            tally.report(&mut out, game)?;
        }
    }
    out.flush()?;
    eprintln!("{} games, {} errors, {} unfinished", tally.games, tally.errors, tally.unfinished);
    Ok(())
}

fn read_input(file: Option<&Path>) -> Result<String> {
    let mut bytes = Vec::new();
    match file {
        Some(p) => bytes = std::fs::read(p).with_context(|| format!("reading {}", p.display()))?,
        None => {
            std::io::stdin().read_to_end(&mut bytes).context("reading standard input")?;
        }
    }
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// A position given on the command line: a board string if it parses as one, else a transcript from the start.
pub fn parse_position(text: &str, rules: Rules) -> Result<(Position, Rules)> {
    let board_error = match Position::parse_board(text) {
        Ok((pos, size)) => return Ok((pos, rules.with_size(size)?)),
        Err(e) => e,
    };
    // Both readings failed: say why for each, since either may be the one meant.
    match Game::from_transcript(rules, text) {
        Ok(game) => Ok((*game.position(), rules)),
        Err(e) => anyhow::bail!("'{text}' is neither a board string ({board_error}) nor a legal transcript ({e})"),
    }
}

pub fn show(text: &str, rules: Rules) -> Result<()> {
    let (pos, rules) = parse_position(text, rules)?;
    rules.check_position(&pos)?;
    let status = rules.status(&pos);
    let marked = match status {
        Status::Moves(m) => m,
        _ => othello_core::Bitboard::EMPTY,
    };
    println!("{}", pos.pretty(rules.size, marked));
    match status {
        Status::Moves(m) => println!("legal moves: {}", m.map(|s| s.to_string()).collect::<Vec<_>>().join(" ")),
        Status::MustPass => println!("{} has no move and must pass", pos.side),
        Status::Over => {
            let o = rules.outcome(&pos);
            let result = match o.winner {
                Some(c) => format!("{c} wins"),
                None => "draw".into(),
            };
            println!("game over: {}-{} ({result})", o.black, o.white);
        }
    }
    println!("board: {}", pos.to_board_string(rules.size));
    Ok(())
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
pub fn solve(text: &str, file: Option<&Path>, rules: Rules, options: SolveOptions) -> Result<()> {
    let SolveOptions { mode, limits, threads, .. } = options;
    let Some(path) = file else {
        let (pos, rules) = parse_position(text, rules)?;
        let mut solver = Solver::new();
        options.setup(&mut solver);
        solver.set_threads(threads);
        let spinner = ProgressBar::new_spinner()
            .with_style(ProgressStyle::with_template("{spinner} {elapsed} {msg}").expect("a valid template"));
        spinner.enable_steady_tick(std::time::Duration::from_millis(200));
        let shown = spinner.clone();
        solver.on_progress(move |p| shown.set_message(describe_progress(p)));
        let solution = solver.solve(&rules, &pos, mode, limits);
        spinner.finish_and_clear();
        print_solution("position", &solution?, mode, None);
        return Ok(());
    };
    let content = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let mut lines = Vec::new();
    for (n, line) in content.lines().enumerate() {
        let Some(problem) = Problem::parse(line) else { continue };
        let parsed = problem.map_err(anyhow::Error::from).and_then(|p| Ok((rules.with_size(p.size)?, p)));
        lines.push((format!("line {}", n + 1), parsed));
    }
    let jobs: Vec<(Rules, Position)> =
        lines.iter().filter_map(|(_, l)| l.as_ref().ok()).map(|(rules, p)| (*rules, p.position)).collect();
    let bar = ProgressBar::new(jobs.len() as u64).with_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} positions  {msg}  ETA {eta}").expect("a valid template"),
    );
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
    solve_many(&jobs, mode, limits, threads, setup, |i, result| {
        nodes_so_far += result.as_ref().map_or(0, |s| s.nodes);
        results[i] = Some(result);
        bar.inc(1);
        bar.set_message(format!("{:.1} M nodes/s", nodes_so_far as f64 / started.elapsed().as_secs_f64() / 1e6));
        bar.suspend(|| report.print_ready(&mut results));
    });
    bar.finish_and_clear();
    let Totals { solved, failed, mismatched, nodes, seconds } = report.totals;
    let wall = match threads {
        1 => String::new(),
        n => format!("; {:.2} s elapsed on {n} threads", started.elapsed().as_secs_f64()),
    };
    let speed = nodes as f64 / seconds.max(1e-9) / 1e6;
    println!(
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
    format!("{stage}; {:.1} M nodes, {:.1} M nodes/s", p.nodes as f64 / 1e6, p.nodes as f64 / secs / 1e6)
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
                    println!("error: {}, {label}: {e:#}", self.file.display());
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
                            println!("error: {}, {label}: {e}", self.file.display());
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
    println!("{line}");
    if !s.principal_variation.is_empty() {
        println!("  pv {}", s.principal_variation.iter().map(|m| m.to_string()).collect::<Vec<_>>().join(" "));
    }
    for (mv, score) in &s.move_scores {
        println!("  {mv} {score:+}");
    }
    ok
}

/// A WTHOR file, read and parsed; errors name it.
fn read_wthor(path: &Path) -> Result<WthorFile> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    WthorFile::parse(&bytes).with_context(|| path.display().to_string())
}

/// The games of WTHOR files, in order.
pub fn read_wthor_games(paths: &[PathBuf]) -> Result<Vec<WthorGame>> {
    let mut games = Vec::new();
    for path in paths {
        games.extend(read_wthor(path)?.games);
    }
    Ok(games)
}

/// `oracle`: how often an agent's move is optimal on positions with `empties` empties from WTHOR games.
pub fn oracle(agent: &str, empties: u32, count: usize, wthor: &[PathBuf], seed: u64, threads: usize) -> Result<()> {
    let games = read_wthor_games(wthor)?;
    let positions = othello_eval::oracle_positions(&games, empties, count, seed);
    anyhow::ensure!(!positions.is_empty(), "no position with {empties} empties and a choice of moves in these games");
    let mut agent = othello_eval::agent_from_spec(agent, seed)?;
    let bar = ProgressBar::new(positions.len() as u64).with_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} positions solved  ETA {eta}").expect("a valid template"),
    );
    let solutions = othello_eval::oracle::solve_all(&positions, threads, || bar.inc(1))?;
    bar.finish_and_clear();
    let report = othello_eval::oracle::evaluate(&mut agent, &positions, &solutions)?;
    println!(
        "{}: {} positions with {empties} empties: optimal {:.1}%, mean loss {:.2} discs",
        agent.name(),
        report.positions,
        100.0 * report.optimal_rate(),
        report.mean_loss()
    );
    Ok(())
}

pub fn fit_eval(wthor: &[PathBuf], labels: Option<&Path>, out: &Path, epochs: u32, prior: f64) -> Result<()> {
    use othello_core::eval::{self, fit, label::LabelFile};
    let (mut train, mut held_out) = (Vec::new(), Vec::new());
    let mut exact = std::collections::HashMap::new();
    if let Some(path) = labels {
        let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
        let file = LabelFile::from_bytes(&bytes).with_context(|| path.display().to_string())?;
        for l in file.labels {
            if l.on_line {
                exact.insert((l.player, l.opponent), l.score);
            } else {
                // Positions off the games' lines: training samples of their own.
                train.push(vec![fit::Sample { player: l.player, opponent: l.opponent, score: l.score, exact: true }]);
            }
        }
    }
    let mut games = 0;
    for path in wthor {
        let file = read_wthor(path)?;
        let depth = file.header.theoretical_depth();
        for game in &file.games {
            games += 1;
            let set = if games % 20 == 0 { &mut held_out } else { &mut train };
            set.push(fit::wthor_samples(game, depth, &exact));
        }
    }
    let (train, held_out): (Vec<_>, Vec<_>) = (train.concat(), held_out.concat());
    anyhow::ensure!(!train.is_empty(), "no game in these files replays");
    eprintln!("{} training positions, {} held out", train.len(), held_out.len());
    let config = fit::FitConfig { epochs, prior, ..fit::FitConfig::default() };
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let weights = fit::fit(&train, config, threads, |phase, epoch, rmse| {
        if epoch % 50 == 0 || epoch == epochs {
            eprintln!("phase {phase} epoch {epoch}: training error {rmse:.2} discs");
        }
    });
    // Per phase, for the new and the shipped weights: squared error and count over all held-out positions, and
    // over those with an exact label.
    let shipped = eval::EvalWeights::builtin();
    let mut errors = vec![[[(0.0, 0usize); 2]; 2]; eval::PHASES];
    for s in &held_out {
        let phase = &mut errors[eval::position_phase(s.player, s.opponent)];
        for (e, w) in phase.iter_mut().zip([&weights, shipped]) {
            let squared = (w.evaluate(s.player, s.opponent) as f64 / eval::SCALE as f64 - s.score as f64).powi(2);
            for e in if s.exact { &mut e[..] } else { &mut e[..1] } {
                e.0 += squared;
                e.1 += 1;
            }
        }
    }
    let rms = |(squares, n): (f64, usize)| (squares / n.max(1) as f64).sqrt();
    for (phase, [new, old]) in errors.into_iter().enumerate().filter(|e| e.1[0][0].1 > 0) {
        let (lo, hi) = (phase as u32 * eval::PHASE_WIDTH, (phase as u32 + 1) * eval::PHASE_WIDTH - 1);
        println!(
            "empties {lo:2}-{hi:2}: held-out error {:.2} discs (shipped weights {:.2}) on {} positions; \
             {:.2} ({:.2}) on the {} exactly labelled",
            rms(new[0]),
            rms(old[0]),
            new[0].1,
            rms(new[1]),
            rms(old[1]),
            new[1].1
        );
    }
    othello_selfplay::atomic::write_atomic(out, &weights.to_bytes())
        .with_context(|| format!("writing {}", out.display()))?;
    println!("wrote {}", out.display());
    Ok(())
}

pub fn import_wthor(files: &[PathBuf], run: &Path, games_per_shard: usize) -> Result<()> {
    let report = othello_train::import::import_wthor(files, &run.join("replay"), games_per_shard)?;
    for skipped in &report.skipped {
        eprintln!("skipped {skipped}");
    }
    println!(
        "{} games, {} positions in {} shards in {} ({} games skipped)",
        report.games,
        report.positions,
        report.shards.len(),
        run.join("replay").display(),
        report.skipped.len()
    );
    Ok(())
}

pub fn export(model: &Path, out: &Path) -> Result<()> {
    let model = if model.is_dir() {
        othello_selfplay::model::newest_model(&model.join("models"))
            .with_context(|| format!("{}: no model in {}", model.display(), model.join("models").display()))?
    } else {
        model.to_path_buf()
    };
    let written = othello_train::export::export(&model, out)?;
    for path in [&written.safetensors, &written.onnx, &written.card, &written.examples] {
        println!("{}", path.display());
    }
    Ok(())
}
