//! The bad-input and fault sweep, kept: each kind of fault as a user meets it through the command line, by
//! category. Data loss and crashes first, then hangs, input accepted without a word, and unclear messages. Each
//! answer is one clear line naming the input at fault, and the process goes on or ends cleanly, never a panic.
//! (A copied run keeping its records is in `train_stage.rs`, beside the trained run it needs.)

use std::time::{Duration, Instant};

use othello_run::RunDir;

mod common;
use common::{bin, csv_records, run_with, temp_run};

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Each command fails with its message, and without a panic.
fn refused(cases: &[(Vec<&str>, &str)]) {
    for (args, needle) in cases {
        let o = run_with(args, b"");
        let err = text(&o.stderr);
        assert!(!o.status.success(), "{args:?} succeeded");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

/// The 6x6 start, black to move.
const SIX_BY_SIX: &str = "--------------OX----XO-------------- X";

// Data loss.

/// A GGF record without its closing `;)` is reported on its line, and the records after it are still read.
#[test]
fn an_unclosed_ggf_record_does_not_swallow_the_next() {
    let record =
        "(;GM[Othello]TY[8]BO[8 ---------------------------O*------*O--------------------------- *]B[f5]W[d6];)";
    let unclosed = record.trim_end_matches(";)");
    let input = format!("{unclosed}\n{record}\n{record}\n");
    let o = run_with(&["replay", "--ggf"], input.as_bytes());
    let (out, err) = (text(&o.stdout), text(&o.stderr));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}{err}");
    assert!(lines[0].contains("line 1") && lines[0].contains("not closed"), "{out}");
    // f5 d6: three discs each.
    assert_eq!(lines[1..], ["3 3", "3 3"][..], "{out}");
    assert!(err.contains("3 games, 1 error, 2 unfinished"), "{err}");
}

// Crashes.

/// An engine that exits at once forfeits its games with the reason: the arena is not killed by the closed pipe.
#[test]
fn an_engine_that_exits_at_once_forfeits_and_the_arena_ends_normally() {
    let scratch = temp_run("engine-exits");
    for protocol in ["gtp", "nboard"] {
        let out = scratch.path().join(protocol);
        let engine = format!("engine:cmd=\"true\",protocol={protocol}");
        for _ in 0..3 {
            let o = bin()
                .args(["arena", "--out", out.to_str().unwrap(), "--agents", &engine, "greedy"])
                .args(["--games", "2", "--rules", "othello,4x4"])
                .output()
                .unwrap();
            assert!(o.status.success(), "{protocol}: {:?} {}", o.status, text(&o.stderr));
            let rows = csv_records(&std::fs::read_to_string(out.join("results.csv")).unwrap());
            assert_eq!(rows.len(), 2, "{rows:?}");
            assert!(rows.iter().all(|r| r[8] == "forfeit" && r[9].contains("closed its pipe")), "{rows:?}");
            std::fs::remove_dir_all(&out).unwrap();
        }
    }
}

/// Thread counts are bounded where they are taken, before a thread starts; so are depths and time limits.
#[test]
fn counts_and_limits_past_any_use_are_refused_by_name() {
    refused(&[
        (vec!["solve", "--threads", "100000", "--time", "1", "f5d6c3"], "'--threads <THREADS>': expected at most 1024"),
        (vec!["selfplay", "--run", "/nonexistent", "--threads", "2000"], "expected at most 1024 threads"),
        (vec!["arena", "--out", "/nonexistent", "--agents", "random", "--threads", "5000"], "at most 1024 threads"),
        (vec!["run", "--run", "/nonexistent", "--threads", "4096"], "at most 1024 threads"),
        (vec!["perft", "100"], "100 is not in 0..=21"),
        (vec!["run", "--run", "/nonexistent", "--minutes", "1e300"], "to 525600 minutes (a year)"),
        (vec!["train", "--run", "/nonexistent", "--minutes", "1e300"], "to 525600 minutes (a year)"),
        // Past a year a deadline overflows; past these depths a benchmark runs for ever; zero sizes and counts
        // measure nothing (burn panicked on a network of no filters).
        (vec!["solve", "--time", "1e19", "f5d6c3"], "'--time <TIME>': expected seconds, more than 0, at most 31536000"),
        (vec!["openings", "--seconds", "1e19", "--out", "/nonexistent/o"], "at most 31536000 (a year)"),
        (vec!["bench", "net", "--filters", "0"], "'--filters <FILTERS>': expected 1 or more"),
        (vec!["bench", "train", "--filters", "0"], "'--filters <FILTERS>': expected 1 or more"),
        (vec!["bench", "perft", "--depth", "100"], "100 is not in 1..=21"),
        (vec!["bench", "pattern", "--depth", "100"], "100 is not in 1..=40"),
        (vec!["bench", "random", "--games", "0"], "'--games <GAMES>': expected 1 or more"),
        // Players and networks of other rules are refused before anything is played or solved.
        (
            vec!["arena", "--out", "/nonexistent/a", "--agents", "pattern:depth=1", "random", "--rules", "othello,6x6"],
            "the pattern evaluation is fitted for 8x8 most-discs Othello, not othello,6x6",
        ),
        (
            vec!["agreement", "--model", "networks/othello-6x6/model.bpk", "--wthor", "data/wthor/WTH_1985.wtb"],
            "a network of othello,6x6; WTHOR's games are 8x8 Othello",
        ),
        (
            vec![
                "optimal-moves",
                "--agent",
                "net:model=networks/othello-6x6/model.bpk,sims=1",
                "--wthor",
                "data/wthor/WTH_1985.wtb",
            ],
            "plays only othello,6x6, not othello",
        ),
        (
            vec!["fit-eval", "x.wtb", "--out", "/nonexistent/w", "--epochs", "0"],
            "'--epochs <EPOCHS>': expected 1 or more",
        ),
    ]);
    // A node limit far below the interval at which limits are checked still stops the solve near it.
    let o = run_with(&["solve", "--nodes", "1000", "f5d6c3"], b"");
    let err = text(&o.stderr) + &text(&o.stdout);
    let nodes: u64 = err
        .split_whitespace()
        .collect::<Vec<_>>()
        .windows(2)
        .find(|w| w[1].starts_with("nodes"))
        .and_then(|w| w[0].trim_start_matches('(').replace(',', "").parse().ok())
        .unwrap_or_else(|| panic!("no node count in: {err}"));
    assert!((1000..20_000).contains(&nodes), "{nodes} nodes for a limit of 1000: {err}");
}

/// A line that is not UTF-8 is answered as an error, and the session goes on to the next line.
#[test]
fn a_byte_of_bad_utf8_is_one_bad_line_in_every_session() {
    let gtp = run_with(&["gtp", "--agent", "greedy"], b"1 play b d3\n2 play w \xff\n3 genmove w\n4 quit\n");
    let replies = text(&gtp.stdout);
    assert!(gtp.status.success(), "{}", text(&gtp.stderr));
    assert!(replies.contains("? line is not UTF-8") && replies.contains("=3 ") && replies.contains("=4"), "{replies}");
    let nboard = run_with(&["nboard", "--agent", "greedy"], b"nboard 2\n\xfe\xff\nping 5\nquit\n");
    let replies = text(&nboard.stdout);
    assert!(replies.contains("status error: line is not UTF-8") && replies.contains("pong 5"), "{replies}");
    let play = run_with(&["play", "--agent", "greedy"], b"\xff\nf5\nquit\n");
    let screen = text(&play.stdout);
    assert!(play.status.success(), "{}", text(&play.stderr));
    assert!(screen.contains("input line 1: line is not UTF-8") && screen.contains("transcript: f5"), "{screen}");
}

// Hangs.

/// An engine that floods its output or echoes what it is told is stopped within its time, with the reason.
#[test]
fn a_flooding_or_echoing_engine_is_stopped_within_its_time() {
    let scratch = temp_run("engine-floods");
    let out = scratch.path().join("arena");
    let flood = "engine:cmd=\"yes\",protocol=nboard,time=1,startup=1";
    let echo = "engine:cmd=\"cat\",protocol=gtp,time=1,startup=1";
    let started = Instant::now();
    let o = bin()
        .args(["arena", "--out", out.to_str().unwrap(), "--gauntlet", "greedy", "--agents", flood, echo])
        .args(["--games", "2", "--rules", "othello,4x4"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(started.elapsed() < Duration::from_secs(30), "{:?}", started.elapsed());
    let rows = csv_records(&std::fs::read_to_string(out.join("results.csv")).unwrap());
    for row in &rows {
        assert_eq!(row[8], "forfeit", "{row:?}");
        let reason = &row[9];
        let flooding = row[2] == flood || row[3] == flood;
        let expected = if flooding {
            reason.contains("flooded") || reason.contains("over its time")
        } else {
            reason.contains("malformed reply to 'boardsize 4': 'boardsize 4'")
        };
        assert!(expected, "{row:?}");
    }
}

// Input accepted without a word.

/// Rules that contradict themselves, none at all, or a board of another size than the rules asked for.
#[test]
fn contradictory_rules_and_a_board_of_another_size_are_refused() {
    let sixty_three = format!("{} X", "-".repeat(63));
    let sixty_five = format!("{} X", "-".repeat(65));
    refused(&[
        (vec!["perft", "3", "--rules", "4x4,6x6"], "rules '4x4' and '6x6' contradict each other"),
        (vec!["perft", "3", "--rules", "traditional,no-pass,pass"], "rules 'no-pass' and 'pass' contradict"),
        (vec!["perft", "3", "--rules", ""], "no rules given"),
        (vec!["show", "--rules", "othello,4x4", SIX_BY_SIX], "the board has 36 squares (6x6) but the rules want 16"),
        (vec!["solve", "--rules", "othello,4x4", SIX_BY_SIX], "the board has 36 squares (6x6) but the rules want 16"),
        // Messages: the squares found, and those a board has.
        (vec!["show", &sixty_three], "board string has 63 squares and the side to move 'X', but a board has 64"),
        (vec!["show", &sixty_five], "board string has 65 squares and the side to move 'X', but a board has 64"),
    ]);
    // The board's own size where no rules are given.
    let o = run_with(&["show", SIX_BY_SIX], b"");
    assert!(text(&o.stdout).contains("legal moves: c2 b3 e4 d5"), "{}{}", text(&o.stdout), text(&o.stderr));
    let ggf = "(;GM[Othello]TY[6]BO[8 ---------------------------O*------*O--------------------------- *];)";
    let o = run_with(&["replay", "--ggf"], ggf.as_bytes());
    assert!(text(&o.stdout).contains("TY[6] names a board of size 6, BO one of size 8"), "{}", text(&o.stdout));
}

/// An NBoard front end's bad values are answered, and a huge token is not echoed back whole.
#[test]
fn bad_nboard_values_get_a_status_error() {
    let huge = format!("move {}\n", "Z".repeat(20_000_000));
    let mut input = b"nboard 2\nset depth -1\nhint -1\nhint abc\nset depth 12\n".to_vec();
    input.extend(huge.as_bytes());
    input.extend(b"ping 1\nquit\n");
    let o = run_with(&["nboard", "--agent", "greedy"], &input);
    let replies = text(&o.stdout);
    let errors: Vec<&str> = replies.lines().filter(|l| l.starts_with("status error")).collect();
    assert_eq!(errors.len(), 4, "{}", &replies[..replies.len().min(2000)]);
    assert!(errors[0].contains("'-1' is not a depth from 1 to 60"), "{errors:?}");
    assert!(errors[1].contains("hint: '-1'") && errors[2].contains("hint: 'abc'"), "{errors:?}");
    assert!(replies.len() < 2000 && replies.contains("pong 1"), "{} bytes of replies", replies.len());
}

/// A run keeps its own config: another one given later is refused before any stage starts.
#[test]
fn another_config_for_a_run_that_has_one_is_refused() {
    let scratch = temp_run("own-config");
    let run = scratch.path().join("run");
    std::fs::create_dir_all(&run).unwrap();
    std::fs::write(RunDir::new(&run).config(), "rules = \"othello,4x4\"\nminutes = 1\n").unwrap();
    let other = scratch.path().join("other.toml");
    std::fs::write(&other, "rules = \"othello,6x6\"\nminutes = 7\n").unwrap();
    refused(&[
        (vec!["run", "--run", run.to_str().unwrap(), "--config", other.to_str().unwrap()], "the run's own config"),
        (vec!["selfplay", "--run", run.to_str().unwrap(), "--config", other.to_str().unwrap()], "the run's own config"),
    ]);
    assert_eq!(std::fs::read_dir(&run).unwrap().count(), 1, "nothing else was written");
}

/// Self-play names the shards it cannot read, and plays their games again.
#[test]
fn selfplay_names_the_shards_it_skips() {
    let scratch = temp_run("unreadable-shard");
    let run = scratch.path();
    let config = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/ci.toml");
    let selfplay = |games: &str| {
        let args = ["selfplay", "--run", run.to_str().unwrap(), "--games", games, "--config", config.to_str().unwrap()];
        let o = bin().args(args).output().unwrap();
        assert!(o.status.success(), "{}", text(&o.stderr));
        text(&o.stderr)
    };
    selfplay("4");
    let replay = RunDir::new(run).replay();
    let shard = std::fs::read_dir(&replay).unwrap().next().unwrap().unwrap().path();
    std::fs::write(&shard, b"not a shard").unwrap();
    let err = selfplay("4");
    assert!(err.contains("skipping an unreadable shard") && err.contains(&shard.display().to_string()), "{err}");
    assert!(err.contains("unreadable shards skipped"), "{err}");
}

// Messages.

/// An ordinary mistake is one line, also where RUST_BACKTRACE asks for backtraces.
#[test]
fn a_user_error_is_one_line_with_or_without_rust_backtrace() {
    for backtrace in ["0", "1", "full"] {
        let o = bin().env("RUST_BACKTRACE", backtrace).args(["show", "--rules", "othello,7x7"]).output().unwrap();
        let err = text(&o.stderr);
        assert!(!o.status.success());
        let o = bin().env("RUST_BACKTRACE", backtrace).args(["solve", "--nodes", "10", "f5d6c3"]).output().unwrap();
        let solve_err = text(&o.stderr);
        assert!(!o.status.success() && solve_err.lines().count() == 1, "{solve_err}");
        assert!(solve_err.starts_with("Error: not solved within the limit"), "{solve_err}");
        assert!(!err.contains("backtrace") && !solve_err.contains("backtrace"), "{err}{solve_err}");
    }
}

/// A mistyped agent is one line that says what is wrong once, and names the players there are.
#[test]
fn a_mistyped_agent_is_one_line_saying_it_once() {
    let o = bin().args(["arena", "--out", "unused", "--agents", "grhinoo:level=3", "random"]).output().unwrap();
    let err = text(&o.stderr);
    assert!(!o.status.success() && err.lines().count() == 1, "{err}");
    assert_eq!(err.matches("unknown agent 'grhinoo'").count(), 1, "{err}");
    assert!(err.contains("grhino:level=N"), "{err}");
}

/// `--minutes 0` is no limit to `train` as to `run`, and both say so.
#[test]
fn zero_minutes_means_no_limit_everywhere() {
    for command in ["run", "train"] {
        let help = text(&bin().args([command, "--help"]).output().unwrap().stdout);
        let flat = help.split_whitespace().collect::<Vec<_>>().join(" ");
        let minutes = flat.split("--minutes <MINUTES> ").nth(1).unwrap_or_default();
        assert!(minutes.split(" --").next().unwrap_or_default().contains("0: no limit"), "{command}: {help}");
    }
}

/// A command whose reader has gone (`| head`) ends quietly with SIGPIPE's status, where `println!` used to panic
/// (SIGPIPE stays ignored, so that an engine's closed pipe forfeits a game instead of ending the process).
#[test]
fn a_reader_gone_ends_a_command_quietly() {
    let mut child = bin()
        .args(["bench", "random", "--games", "2000", "--repeat", "2"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(out.status.code(), Some(141), "{stderr}");
}
