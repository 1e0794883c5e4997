//! End-to-end tests of the `othello-zero` command line against independent truths: the published perft table,
//! the WTHOR database's stored scores, the rules' documented facts.

use std::process::{Output, Stdio};

mod common;
use common::{bin, data};

fn run(args: &[&str], stdin: &str) -> Output {
    common::run_with(args, stdin.as_bytes())
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn perft_prints_the_published_counts_in_each_convention() {
    let table = std::fs::read_to_string(data("perft.txt")).unwrap();
    let row: Vec<u64> =
        table.lines().find(|l| l.starts_with("9 ")).unwrap().split_whitespace().map(|f| f.parse().unwrap()).collect();
    for (convention, want) in [("edges", row[1]), ("leaves", row[2]), ("no-pass", row[3])] {
        let o = run(&["perft", "9", "--convention", convention], "");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert_eq!(stdout(&o).trim(), want.to_string(), "{convention}");
    }
}

#[test]
fn replay_prints_counts_or_an_error_per_line_and_carries_on() {
    let input = "e6 f4 e3 d6 c5 f6 e7 f5 g5\nf5 d6 a1\nF5D6C3\nf5 q9\n";
    let o = run(&["replay"], input);
    // Every line is answered, and the exit status says that two of them are errors.
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("2 of 4 games could not be replayed"));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 4, "{out}");
    assert_eq!(lines[0], "13 0");
    assert!(lines[1].starts_with("error: line 2: move 3 (a1):"), "{}", lines[1]);
    assert_eq!(lines[2], "5 2"); // f5 flips e5, d6 flips d5, c3 flips d4
    assert!(lines[3].starts_with("error: line 4: bad move token 'q9'"), "{}", lines[3]);
    // Empties to the winner: the shortest game is 64-0.
    let o = run(&["replay", "--rules", "empties"], "e6f4e3d6c5f6e7f5g5\n");
    assert!(o.status.success());
    assert_eq!(stdout(&o).trim(), "64 0");
}

#[test]
fn replay_of_wthor_matches_the_scores_stored_in_the_database() {
    let path = data("wthor/WTH_2004.wtb");
    let file = othello_core::wthor::WthorFile::parse(&std::fs::read(&path).unwrap()).unwrap();
    let o = run(&["replay", "--rules", "empties", "--wthor", path.to_str().unwrap()], "");
    assert!(o.status.success());
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), file.games.len());
    let mut checked = 0;
    for (line, game) in lines.iter().zip(&file.games) {
        let (b, w) = line.split_once(' ').unwrap();
        let (b, w): (u32, u32) = (b.parse().unwrap(), w.parse().unwrap());
        if b + w == 64 {
            // A finished game (all squares counted): black's count is the stored score.
            assert_eq!(b, game.black_score as u32, "{line}");
            checked += 1;
        }
    }
    assert!(checked > file.games.len() * 9 / 10);
    // A truncated file is an error line naming the file, not a crash.
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path();
    let cut = dir.join("cut.wtb");
    std::fs::write(&cut, &std::fs::read(&path).unwrap()[..1000]).unwrap();
    let o = run(&["replay", "--wthor", cut.to_str().unwrap()], "");
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("1 of 1 files could not be read"));
    assert!(stdout(&o).starts_with("error: ") && stdout(&o).contains("cut.wtb") && stdout(&o).contains("truncated"));
}

#[test]
fn replay_reads_ggf() {
    let ggf = "(;GM[Othello]PB[a]PW[b]TY[8]BO[8 -------- -------- -------- ---O*--- ---*O--- -------- -------- \
               -------- *]B[e6]W[f4]B[e3]W[d6]B[c5]W[f6]B[e7]W[f5]B[g5];)\n(;GM[Othello]B[a1];)\n";
    let o = run(&["replay", "--ggf"], ggf);
    assert!(!o.status.success());
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "13 0");
    assert!(lines[1].starts_with("error: line 2: move 1 (a1)"), "{}", lines[1]);
    // Transcripts given as GGF are an error, not zero games; no input at all is zero games.
    let o = run(&["replay", "--ggf"], "f5d6c3\n");
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("standard input: no GGF game record"));
    assert!(run(&["replay", "--ggf"], "").status.success());
}

#[test]
fn show_marks_the_legal_moves() {
    let o = run(&["show"], "");
    assert!(o.status.success());
    let out = stdout(&o);
    assert!(out.contains("legal moves: d3 c4 f5 e6"), "{out}");
    assert_eq!(out.matches('*').count(), 4);
    let o = run(&["show", "f5", "d6"], "");
    assert!(stdout(&o).contains("legal moves: c3 c4 c5 c6 c7"));
    // A flag among the position's moves is read as the flag it is.
    let o = run(&["show", "f5", "--rules", "othello", "d6"], "");
    assert!(stdout(&o).contains("legal moves: c3 c4 c5 c6 c7"), "{}", String::from_utf8_lossy(&o.stderr));
    let board = "---------------------------OX------XO--------------------------- O";
    let o = run(&["show", board], "");
    assert!(stdout(&o).contains("legal moves: e3 f4 c5 d6"), "{}", stdout(&o));
}

#[test]
fn bad_input_gives_a_clear_error_not_a_panic() {
    let bad_side = format!("{} Q", "-".repeat(27) + "OX------XO" + &"-".repeat(27));
    for (args, needle) in [
        (vec!["perft", "3", "--rules", "7x7"], "unknown rule '7x7'"),
        (vec!["perft", "3", "--convention", "sideways"], "unknown perft convention"),
        (vec!["show", "zz"], "neither a board string (board string has 2 squares"),
        (vec!["show", &bad_side], "bad side to move 'Q'"),
        (vec!["replay", "--file", "/nonexistent/games.txt"], "/nonexistent/games.txt"),
        (vec!["arena", "--out", "/nonexistent", "--agents", "random", "greedy", "--games", "0"], "expected 1 or more"),
        (vec!["selfplay", "--run", "/nonexistent", "--threads", "0"], "'--threads <THREADS>': expected 1 or more"),
        // More games than a worker's game ids tell apart would give two games one id.
        (vec!["selfplay", "--run", "/nonexistent", "--games", "4294967297"], "expected at most 4294967296"),
        (vec!["evaluate", "--run", "/nonexistent", "--every", "x"], "'x' is not a whole number"),
        (vec!["ratings", "/nonexistent/run"], "/nonexistent/run: no such directory"),
        (vec!["optimal-moves", "--games", "/nonexistent/arena"], "/nonexistent/arena: no such directory"),
        // Time limits: NaN, the infinities and negative numbers are refused before a `Duration` is made of them.
        (vec!["solve", "f5", "--time", "nan"], "'--time <TIME>': expected seconds, more than 0"),
        (vec!["solve", "--time=-3", "f5"], "'--time <TIME>': expected seconds, more than 0"),
        (
            vec!["openings", "--rules", "6x6", "--seconds", "1e300", "--out", "/nonexistent/o"],
            "at most 31536000 (a year)",
        ),
        (vec!["bench", "net", "--seconds", "nan"], "'--seconds <SECONDS>': expected seconds, more than 0"),
        (vec!["run", "--run", "/nonexistent", "--minutes", "inf"], "'--minutes <MINUTES>': expected 0 (no limit) to"),
        (vec!["train", "--run", "/nonexistent", "--minutes=-1"], "'--minutes <MINUTES>': expected 0 (no limit) to"),
    ] {
        let o = run(&args, "");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success(), "{args:?}");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    // A huge argument is quoted clipped, not whole.
    let huge = "Z".repeat(100_000);
    let err = String::from_utf8_lossy(&run(&["show", &huge], "").stderr).into_owned();
    assert!(err.contains("ZZZ...' is neither a board string") && err.len() < 1000, "{} bytes", err.len());
}

/// A reader that goes away early (`| head`) ends the process without a panic.
#[test]
fn a_closed_stdout_ends_the_run_quietly() {
    let mut child = bin()
        .args(["perft", "6", "--convention", "leaves"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn bench_runs_every_kernel() {
    let o = run(&["bench", "random", "--games", "2000", "--repeat", "1"], "");
    assert!(o.status.success());
    let out = stdout(&o);
    assert!(out.contains("portable:") && out.contains("games/s"), "{out}");
    let o = run(&["bench", "perft", "--depth", "6", "--repeat", "1"], "");
    assert!(stdout(&o).contains("8200 leaves"), "{}", stdout(&o));
}

#[test]
fn fit_eval_learns_weights_that_predict_held_out_games() {
    let path = data("wthor/WTH_2004.wtb");
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path();
    let out = dir.join("weights.bin");
    let o = run(&["fit-eval", path.to_str().unwrap(), "--epochs", "150", "--out", out.to_str().unwrap()], "");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let weights =
        othello_core::pattern::PatternWeights::from_bytes(&std::fs::read(&out).unwrap()).expect("a weights file");
    assert_ne!(weights, othello_core::pattern::PatternWeights::zero());
    // The held-out error at 24-27 empties (labels: theoretical scores) against the spread of those scores, which is
    // the error of predicting 0.
    let file = othello_core::wthor::WthorFile::parse(&std::fs::read(&path).unwrap()).unwrap();
    let spread = (file.games.iter().map(|g| (2.0 * g.theoretical_score as f64 - 64.0).powi(2)).sum::<f64>()
        / file.games.len() as f64)
        .sqrt();
    let line =
        stdout(&o).lines().find(|l| l.starts_with("empties 24-27")).map(str::to_owned).expect("a line per phase");
    let error: f64 = line.split("error ").nth(1).unwrap().split(' ').next().unwrap().parse().unwrap();
    assert!(error < 0.8 * spread, "{line} (spread {spread:.2})");
}

#[test]
fn label_endgames_writes_exact_labels_that_fit_eval_reads_and_resumes() {
    let path = data("wthor/WTH_2004.wtb");
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path();
    let labels = dir.join("labels.bin");
    let (wthor, out) = (path.to_str().unwrap(), labels.to_str().unwrap());
    let args = ["label-endgames", wthor, "--out", out, "--every", "199", "--max-empties", "12", "--threads", "2"];
    let o = run(&args, "");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let bytes = std::fs::read(&labels).unwrap();
    let file = othello_core::pattern::label::LabelFile::from_bytes(&bytes).expect("a label file");
    let games = othello_core::wthor::WthorFile::parse(&std::fs::read(&path).unwrap()).unwrap().games.len();
    assert_eq!(file.run.games_done as usize, games.div_ceil(199));
    // Positions at 6-12 empties where the mover can move, and about as many other children.
    let played = file.labels.iter().filter(|l| l.on_line).count();
    assert!(
        played > 5 * file.run.games_done as usize && played < file.labels.len(),
        "{played} of {}",
        file.labels.len()
    );
    // Run again: nothing left to do, the file unchanged; other settings are refused, naming the file.
    let o = run(&args, "");
    assert!(String::from_utf8_lossy(&o.stderr).contains("resuming after"), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(std::fs::read(&labels).unwrap(), bytes);
    let o = run(&["label-endgames", wthor, "--out", out, "--every", "100"], "");
    assert!(!o.status.success() && String::from_utf8_lossy(&o.stderr).contains(out));
    let weights = dir.join("weights.bin");
    let o = run(&["fit-eval", wthor, "--labels", out, "--epochs", "20", "--out", weights.to_str().unwrap()], "");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let line =
        stdout(&o).lines().find(|l| l.starts_with("empties  8-11")).map(str::to_owned).expect("a line per phase");
    // Game 199 (and every 20th after it) is held out of the fit and was labelled.
    assert!(line.contains("exactly labelled") && !line.ends_with(" 0 exactly labelled"), "{line}");
    std::fs::write(&labels, &bytes[..bytes.len() - 5]).unwrap();
    let o = run(&["fit-eval", wthor, "--labels", out, "--out", weights.to_str().unwrap()], "");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains(out) && err.contains("truncated"), "{err}");
}

/// FFO #40 and #41 rewritten in Edax's `.obf` layout: the CLI solves them to the file's scores and moves (on one
/// thread and on two, and #40 alone on two with a 1 MB table), flags a line whose listed score is wrong, and names
/// the line of a malformed one.
#[test]
fn solve_reads_obf_files_and_checks_their_answers() {
    let ffo = std::fs::read_to_string(data("ffo-40-59.txt")).expect("the FFO suite is in data/");
    let obf: Vec<String> = ffo
        .lines()
        .filter(|l| !l.starts_with('#'))
        .take(2)
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let moves: Vec<String> = f[2].split(',').map(|m| format!("{}:{};", m.to_uppercase(), f[3])).collect();
            format!("{} {}; {}", f[0], f[1], moves.join(" "))
        })
        .collect();
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path();
    let good = dir.join("good.obf");
    std::fs::write(&good, format!("% two FFO problems\n{}\n", obf.join("\n"))).unwrap();
    let o = run(&["solve", "--rules", "empties", "--one-best", "--file", good.to_str().unwrap()], "");
    let out = stdout(&o);
    assert!(o.status.success(), "{out}");
    assert!(out.contains("best a2 score +38") && out.contains("best h4 score +0"), "{out}");
    assert!(out.contains("solved 2, errors 0, disagreeing with the file 0"), "{out}");
    // One position searched on two threads, every best move proven, in the smallest table the CLI takes; a table
    // of no size is refused.
    let ffo40: Vec<&str> = ffo.lines().find(|l| !l.starts_with('#')).unwrap().split_whitespace().collect();
    let board = format!("{} {}", ffo40[0], ffo40[1]);
    let o = run(&["solve", "--rules", "empties", "--threads", "2", "--table-mb", "1", &board], "");
    assert!(stdout(&o).starts_with("position: best a2 score +38"), "{}", stdout(&o));
    // With a line of perfect play, which played out from the board ends the game with the file's score.
    let o = run(&["solve", "--rules", "empties", "--one-best", "--pv", &board], "");
    let out = stdout(&o);
    let line = out.lines().find_map(|l| l.strip_prefix("  pv ")).unwrap_or_else(|| panic!("no pv line: {out}"));
    let rules: othello_core::Rules = "empties".parse().unwrap();
    let (mut pos, _) = othello_core::Position::parse_board(&board).unwrap();
    for mv in line.split(' ') {
        pos = rules.play(&pos, mv.parse().unwrap()).unwrap_or_else(|e| panic!("{mv} of {line}: {e}"));
    }
    let margin = rules.outcome(&pos).margin_for(othello_core::Color::Black);
    assert!(line.starts_with("a2 ") && rules.is_over(&pos) && margin == 38, "{line}: {margin}");
    // The same flags after the board string are read as flags, not as more of the position.
    let o = run(&["solve", &board, "--rules", "empties", "--one-best", "--pv"], "");
    let out = stdout(&o);
    assert!(out.contains(&format!("  pv {line}\n")), "{out}{}", String::from_utf8_lossy(&o.stderr));
    let o = run(&["solve", "--table-mb", "0", &board], "");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("--table-mb") && err.contains("not in 1..=16384"), "{err}");
    // Nothing to solve is an error, not a search of the start position that never ends.
    let o = run(&["solve", "--time", "1"], "");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("<POSITION>") && err.contains("required"), "{err}");
    // On two threads (#40 has fewer empties, so it starts second) the lines still come in the file's order, a
    // malformed line where it stands.
    std::fs::write(&good, format!("{}\nnot a board\n{}\n", obf[1], obf[0])).unwrap();
    let o = run(&["solve", "--rules", "empties", "--one-best", "--threads", "2", "--file", good.to_str().unwrap()], "");
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines.len() == 4 && lines[0].starts_with("line 1: best h4 score +0"), "{out}");
    assert!(
        lines[1].starts_with(&format!("error: {}, line 2:", good.display()))
            && lines[2].starts_with("line 3: best a2 score +38"),
        "{out}"
    );
    assert!(
        lines[3].starts_with("solved 2, errors 1, disagreeing with the file 0") && lines[3].ends_with("on 2 threads")
    );
    assert!(!o.status.success() && String::from_utf8_lossy(&o.stderr).contains("1 lines not solved"));

    let bad = dir.join("bad.obf");
    let wrong = obf[0].replace(":+38;", ":+36;");
    std::fs::write(&bad, format!("{wrong}\n{}; A2:+3x;\n", &obf[1][..66])).unwrap();
    let o = run(&["solve", "--rules", "empties", "--one-best", "--file", bad.to_str().unwrap()], "");
    let out = stdout(&o);
    assert!(!o.status.success());
    assert!(
        out.contains("DISAGREES") && out.contains(&format!("error: {}, line 2: bad score '+3x'", bad.display())),
        "{out}"
    );
}

/// `optimal-moves --agent` on WTHOR positions: an agent that solves 10 empties plays every solver's move and loses
/// nothing; a random one does not.
#[test]
fn optimal_moves_of_an_agent_on_wthor_positions() {
    let path = data("wthor/WTH_2004.wtb");
    let rate = |agent: &str| {
        let args = ["optimal-moves", "--agent", agent, "--empties", "10", "--positions", "40", "--wthor"];
        let o = run(&[&args[..], &[path.to_str().unwrap()]].concat(), "");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let out = stdout(&o);
        assert!(out.starts_with(&format!("{agent}: 40 positions with 10 empties")), "{out}");
        out.split("optimal ").nth(1).unwrap().split('%').next().unwrap().parse::<f64>().unwrap()
    };
    assert_eq!(rate("random+endgame10"), 100.0);
    assert!(rate("random") < 80.0);
}
