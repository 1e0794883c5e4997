//! The rules commands: `perft`, `replay` (transcripts, GGF, WTHOR), `show`.

use std::io::{BufRead, Read, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use othello_core::ggf::parse_ggf;
use othello_core::perft::perft_with;
use othello_core::wthor::WthorFile;
use othello_core::{Convention, Game, KernelKind, Move, Rules, Status};

use crate::input::parse_position;

/// Count the move sequences of DEPTH plies (perft).
#[derive(clap::Args)]
pub struct PerftArgs {
    /// Plies, at most 21: past that the count from the 8x8 start no longer fits 64 bits (and would take centuries).
    #[arg(value_parser = clap::value_parser!(u32).range(0..=21))]
    depth: u32,
    /// How passes and finished games count: edges (OEIS A124004), leaves (Egaroucid mode 1), no-pass (mode 2).
    #[arg(long, default_value = "leaves")]
    convention: Convention,
    #[arg(long, default_value = "othello", help = crate::flags::rules_help!(""))]
    rules: Rules,
    /// Kernel: portable, avx2, avx512 (default: the fastest this CPU has).
    #[arg(long)]
    kernel: Option<KernelKind>,
}

/// Replay games (one transcript per line): each game's final disc counts.
///
/// Prints `BLACK WHITE` for each game, or the game's error on its line; the exit status is 1 when any game is an error.
#[derive(clap::Args)]
pub struct ReplayArgs {
    /// Read from this file instead of standard input.
    #[arg(long)]
    file: Option<PathBuf>,
    /// The input is GGF game records (several games per file).
    #[arg(long, conflicts_with = "wthor")]
    ggf: bool,
    /// Read these WTHOR database files (.wtb).
    #[arg(long, num_args = 1..)]
    wthor: Vec<PathBuf>,
    #[arg(long, default_value = "othello", help = crate::flags::rules_help!(""))]
    rules: Rules,
}

/// Print a position (a transcript or a board string) with its legal moves marked `*`.
#[derive(clap::Args)]
pub struct ShowArgs {
    /// A transcript (`f5d6c3`) or a board string (the squares and the side to move); empty for the start.
    #[arg(allow_hyphen_values = true)]
    pub position: Vec<String>,
    #[arg(long, help = crate::flags::rules_help!(" (default: othello at the board's size)"))]
    rules: Option<Rules>,
}

pub fn perft_command(args: PerftArgs) -> Result<()> {
    perft(args.depth, args.convention, &args.rules, args.kernel)
}

pub fn replay_command(args: ReplayArgs) -> Result<()> {
    replay(args.file.as_deref(), args.ggf, &args.wthor, args.rules)
}

pub fn show_command(args: ShowArgs) -> Result<()> {
    show(&args.position.join(" "), args.rules)
}

pub fn perft(depth: u32, convention: Convention, rules: &Rules, kernel: Option<KernelKind>) -> Result<()> {
    let kernel = kernel.unwrap_or_else(KernelKind::best);
    outln!("{}", perft_with(kernel, rules, &rules.start_position(), depth, convention));
    Ok(())
}

/// Counts what `replay` saw, reported on standard error at the end.
#[derive(Default)]
struct Tally {
    games: usize,
    errors: usize,
    unfinished: usize,
    /// WTHOR files that could not be parsed at all (their games are not counted).
    unreadable_files: usize,
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
                    tally.unreadable_files += 1;
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
        // Text with no record in it is another format, not zero games.
        if tally.games == 0 && !text.trim().is_empty() {
            let source = file.map_or("standard input".to_string(), |p| p.display().to_string());
            anyhow::bail!("{source}: no GGF game record (one starts with '(;')");
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
    let errors = format!("{} error{}", tally.errors, super::plural(tally.errors));
    eprintln!("{} game{}, {errors}, {} unfinished", tally.games, super::plural(tally.games), tally.unfinished);
    // Every game and unreadable file has its line; the exit status tells a script that some of them are errors.
    let mut faults = Vec::new();
    if tally.errors > 0 {
        faults.push(format!("{} of {} games could not be replayed", tally.errors, tally.games));
    }
    if tally.unreadable_files > 0 {
        faults.push(format!("{} of {} files could not be read", tally.unreadable_files, wthor.len()));
    }
    anyhow::ensure!(faults.is_empty(), "{} (their lines say why)", faults.join("; "));
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

pub fn show(text: &str, rules: Option<Rules>) -> Result<()> {
    let (pos, rules) = parse_position(text, rules)?;
    rules.check_position(&pos)?;
    outln!("{}", pos.pretty(rules.size, rules.legal_moves(&pos)));
    match rules.status(&pos) {
        Status::Moves(m) => outln!("legal moves: {}", m.square_list()),
        Status::MustPass => outln!("{} has no move and must pass", pos.side),
        Status::Over => {
            let o = rules.outcome(&pos);
            let result = match o.winner {
                Some(c) => format!("{c} wins"),
                None => "draw".into(),
            };
            outln!("game over: {}-{} ({result})", o.black, o.white);
        }
    }
    outln!("board: {}", pos.to_board_string(rules.size));
    Ok(())
}
