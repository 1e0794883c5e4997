//! End-to-end tests of the arena: games stored as they end, a `kill -9` and a rerun that plays only what is
//! missing, agents joining later, and the ratings table with its files.

use std::collections::HashSet;
use std::path::Path;
use std::time::Duration;

mod common;
use common::{bin, csv_records, poll_until, script, temp_run};

/// The keys of the complete rows of `results.csv` (a row being appended is not counted).
fn keys(dir: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(dir.join("results.csv")).unwrap_or_default();
    let complete = &text[..text.rfind('\n').map_or(0, |end| end + 1)];
    csv_records(complete).into_iter().map(|row| row[0].clone()).collect()
}

fn arena(dir: &Path, agents: &[&str], games: &str) -> std::process::Command {
    let mut cmd = bin();
    cmd.args(["arena", "--out", dir.to_str().unwrap(), "--games", games, "--threads", "2", "--agents"]).args(agents);
    cmd
}

#[test]
fn a_killed_arena_resumes_with_only_the_missing_games_and_agents_join_later() {
    let scratch = temp_run("arena");
    let dir = scratch.path();
    let agents = ["random", "greedy", "positional:depth=2"];
    // 3 pairings x 200 games on 8x8: long enough to be killed midway.
    let mut child = arena(dir, &agents, "200").stderr(std::process::Stdio::null()).spawn().unwrap();
    poll_until(Duration::from_secs(120), || keys(dir).len() >= 40);
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let before = keys(dir).len();
    assert!((40..600).contains(&before), "{before} games stored before the kill");

    let out = arena(dir, &agents, "200").output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let all = keys(dir);
    assert_eq!(all.len(), 600, "every scheduled game once");
    assert_eq!(all.iter().collect::<HashSet<_>>().len(), 600, "no game stored twice");
    assert!(stderr.contains(&format!("{} to play", 600 - before)), "{stderr}");
    let games = std::fs::read_dir(dir.join("games"))
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().extension().is_some_and(|x| x == "ggf"))
        .count();
    assert_eq!(games, 600);

    // The ratings put the players in the order of their strength, apart where the gaps are large.
    let table = String::from_utf8_lossy(&out.stdout).to_string();
    let order: Vec<&str> = table.lines().skip(1).filter_map(|l| l.split_whitespace().nth(1)).collect();
    assert_eq!(order.first(), Some(&"positional:depth=2"), "{table}");

    // A fourth agent plays only its own pairings.
    let out = arena(dir, &["random", "greedy", "positional:depth=2", "positional:depth=1"], "200").output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && stderr.contains("600 already") && stderr.contains("600 to play"), "{stderr}");
    assert_eq!(keys(dir).len(), 1200);

    // `ratings` writes its table as CSV and JSON, anchored where asked.
    let out = bin().args(["ratings", dir.to_str().unwrap(), "--anchor", "greedy=100"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("ratings.json")).unwrap()).unwrap();
    let ratings = json["ratings"].as_array().unwrap();
    assert_eq!(ratings.len(), 4);
    let greedy = ratings.iter().find(|r| r["player"] == "greedy").unwrap();
    assert_eq!(greedy["elo"], 100.0);
    assert_eq!(std::fs::read_to_string(dir.join("ratings.csv")).unwrap().lines().count(), 5);
}

/// Two directories sharing a player are rated on one scale, as one directory holding the union of their games is
/// (a game both hold, the same key, counts once).
#[test]
fn ratings_of_several_directories_are_those_of_their_games_together() {
    let scratch = [temp_run("ratings-a"), temp_run("ratings-b"), temp_run("ratings-union")];
    let [a, b, union] = scratch.each_ref().map(|d| d.path());
    assert!(arena(a, &["random", "greedy"], "20").output().unwrap().status.success());
    // B repeats A's pairing (the same seed: the same games) and adds a stronger player.
    assert!(arena(b, &["random", "greedy", "positional:depth=2"], "20").output().unwrap().status.success());
    let text = |dir: &Path| std::fs::read_to_string(dir.join("results.csv")).unwrap();
    let (text_a, text_b) = (text(a), text(b));
    let mut lines: Vec<&str> = text_a.lines().collect();
    let seen: HashSet<&str> = lines.iter().skip(1).map(|l| l.split(',').next().unwrap()).collect();
    lines.extend(text_b.lines().skip(1).filter(|l| !seen.contains(l.split(',').next().unwrap())));
    assert_eq!(lines.len(), 1 + 60, "A's 20 games and B's 40 others");
    std::fs::create_dir_all(union).unwrap();
    std::fs::write(union.join("results.csv"), lines.join("\n") + "\n").unwrap();

    let out_scratch = temp_run("ratings-together");
    let out_dir = out_scratch.path();
    let out = bin()
        .args(["ratings", a.to_str().unwrap(), b.to_str().unwrap(), "--out", out_dir.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(bin().args(["ratings", union.to_str().unwrap()]).output().unwrap().status.success());
    let json = |dir: &Path| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(dir.join("ratings.json")).unwrap()).unwrap()
    };
    let (together, expected) = (json(out_dir), json(union));
    assert_eq!(together["games"], 60);
    assert_eq!(together["ratings"], expected["ratings"]);
    assert_eq!(together["ratings"][0]["player"], "positional:depth=2");
}

/// `optimal-moves` without a player: every player's moves against the solver, several directories' games
/// together (a game both stored counts once), the perfect player at 100% and the rest below.
#[test]
fn optimal_moves_of_several_directories_count_each_game_once() {
    let scratch = [temp_run("optimal-a"), temp_run("optimal-b"), temp_run("optimal-together")];
    let [a, b, together] = scratch.each_ref().map(|d| d.path());
    let perfect = "random+endgame16";
    let on_4x4 = |dir: &Path, agents: &[&str]| {
        let out = arena(dir, agents, "10").args(["--rules", "othello,4x4"]).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    };
    on_4x4(a, &["random", perfect]);
    // B repeats A's pairing (the same seed: the same games) and adds greedy.
    on_4x4(b, &["random", perfect, "greedy"]);
    let optimal_moves_with = |dirs: &[&Path], out: &Path, extra: &[&str]| -> Vec<(String, f64, f64, f64)> {
        let mut cmd = bin();
        cmd.args(["optimal-moves", "--max-empties", "16", "--threads", "2", "--out", out.to_str().unwrap()]);
        cmd.args(extra).arg("--games");
        let output = cmd.args(dirs).output().unwrap();
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        let csv = std::fs::read_to_string(out.join("optimal-moves.csv")).unwrap();
        // player, moves, optimal, low, high, result kept, mean loss, its interval: no spec here has a comma.
        csv.lines()
            .skip(1)
            .map(|l| {
                let f: Vec<&str> = l.split(',').collect();
                (f[0].to_string(), f[1].parse().unwrap(), f[2].parse().unwrap(), f[6].parse().unwrap())
            })
            .collect()
    };
    let optimal_moves = |dirs: &[&Path], out: &Path| optimal_moves_with(dirs, out, &[]);
    let only_a = optimal_moves(&[a], a);
    let both = optimal_moves(&[a, b], together);
    // A's games are B's too: together they are B's alone, each game once.
    assert_eq!(both, optimal_moves(&[b], b));
    // Best first: the perfect player, every move the solver's, then the other two below it.
    let players: HashSet<&str> = both.iter().map(|r| r.0.as_str()).collect();
    assert_eq!((both[0].0.as_str(), players), (perfect, HashSet::from([perfect, "greedy", "random"])));
    // One fixed set of positions for all, from the games between players without a model (here every game).
    let fixed = optimal_moves_with(&[a, b], together, &["--fixed-positions", "20"]);
    assert!(fixed.iter().all(|r| r.1 == 20.0), "{fixed:?}");
    // Any player can be put to those positions; one that cannot answer is refused by name.
    let absent = "net:model=/nonexistent/model.json,sims=1";
    let out = bin()
        .args(["optimal-moves", "--fixed-positions", "20", "--max-empties", "16", "--player", absent, "--games"])
        .arg(a)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && stderr.contains("/nonexistent/model.json"), "{stderr}");
    for rows in [&only_a, &both, &fixed] {
        assert_eq!((rows[0].0.as_str(), rows[0].2, rows[0].3), (perfect, 1.0, 0.0), "{rows:?}");
        assert!(rows[1..].iter().all(|r| r.1 > 0.0 && r.2 < 1.0 && r.3 > 0.0), "{rows:?}");
    }
}

#[test]
fn bad_agent_specs_and_anchors_are_refused_by_name() {
    let scratch = temp_run("arena-bad");
    let dir = scratch.path();
    let out = arena(dir, &["random", "positional:depht=2"], "2").output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && stderr.contains("depht"), "{stderr}");
    assert!(arena(dir, &["random", "greedy"], "2").output().unwrap().status.success());
    let out = bin().args(["ratings", dir.to_str().unwrap(), "--anchor", "nobody=0"]).output().unwrap();
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("nobody"));
    let out = bin().args(["ratings", dir.to_str().unwrap(), "--anchor", "greedy=nan"]).output().unwrap();
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("'nan' is not a number"));
}

/// A much stronger candidate is accepted (H1) and a much weaker one rejected (H0), each after a handful of pairs;
/// a rerun reaches the same decision from the stored games without playing any.
#[test]
fn sprt_decides_clear_cases_and_a_rerun_replays_nothing() {
    let scratch = temp_run("sprt");
    let dir = scratch.path();
    let sprt = |candidate: &str, baseline: &str, out: &Path| {
        bin()
            .args(["sprt", "--out", out.to_str().unwrap(), "--candidate", candidate, "--baseline", baseline])
            .args(["--elo0", "0", "--elo1", "100", "--rules", "othello,6x6"])
            .output()
            .unwrap()
    };
    let strong = dir.join("strong");
    let out = sprt("positional:depth=2", "random", &strong);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("H1 accepted"), "{}", String::from_utf8_lossy(&out.stdout));
    let decision: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(strong.join("sprt.json")).unwrap()).unwrap();
    assert_eq!(decision["decision"], "H1");
    assert!(decision["llr"].as_f64().unwrap() >= decision["bounds"][1].as_f64().unwrap());
    let games = keys(&strong).len();
    assert_eq!(games as u64, 2 * decision["pairs"].as_u64().unwrap());
    let again = sprt("positional:depth=2", "random", &strong);
    assert!(String::from_utf8_lossy(&again.stdout).contains("H1 accepted"));
    assert_eq!(keys(&strong).len(), games, "the rerun played no game");

    let weak = dir.join("weak");
    let out = sprt("random", "positional:depth=2", &weak);
    assert!(String::from_utf8_lossy(&out.stdout).contains("H0 accepted"), "{}", String::from_utf8_lossy(&out.stdout));
}

/// An arena directory records its rules, seed and openings with its first games: a continuation under others is
/// refused naming both (arena and sprt alike), and random openings as long as a game are refused up front.
#[test]
fn an_arena_directory_keeps_the_rules_seed_and_openings_of_its_games() {
    let scratch = temp_run("arena-setup");
    let dir = scratch.path().join("a");
    let play = |extra: &[&str]| arena(&dir, &["random", "greedy"], "2").args(extra).output().unwrap();
    let first = play(&["--rules", "othello,6x6", "--seed", "5"]);
    assert!(first.status.success(), "{}", String::from_utf8_lossy(&first.stderr));
    let recorded = std::fs::read_to_string(dir.join("arena.json")).unwrap();
    assert!(recorded.contains("\"othello,6x6\"") && recorded.contains("\"seed\": 5"), "{recorded}");
    let again = play(&["--rules", "othello,6x6", "--seed", "5"]);
    assert!(again.status.success(), "{}", String::from_utf8_lossy(&again.stderr));
    for (extra, asked) in [
        (&["--rules", "othello,4x4", "--seed", "5"][..], "rules othello,4x4, seed 5"),
        (&["--rules", "othello,6x6", "--seed", "6"][..], "rules othello,6x6, seed 6"),
        (&["--rules", "othello,6x6", "--seed", "5", "--openings", "random"][..], "openings 4 random plies"),
    ] {
        let out = play(extra);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{extra:?} joined the games");
        assert!(
            err.contains("its games were played under rules othello,6x6, seed 5, openings ") && err.contains(asked),
            "{err}"
        );
    }
    let sprt = bin()
        .args(["sprt", "--out", dir.to_str().unwrap(), "--candidate", "greedy", "--baseline", "random"])
        .args(["--rules", "othello,4x4", "--seed", "5"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&sprt.stderr).contains("its games were played under"), "{sprt:?}");
    assert_eq!(keys(&dir).len(), 2, "no game joined");
    let long = arena(&scratch.path().join("b"), &["random", "greedy"], "2")
        .args(["--rules", "othello,4x4", "--openings", "random", "--opening-plies", "12"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&long.stderr);
    assert!(err.contains("--opening-plies 12: a game of othello,4x4 has at most 12 moves"), "{err}");
}

/// Every agent is seeded per game: the same agents, seed and openings give the same games on one thread or two.
#[test]
fn the_same_games_on_one_thread_or_two() {
    let scratch = temp_run("arena-threads");
    let dir = scratch.path();
    let rows = |threads: &str| {
        let out = dir.join(threads);
        let status = bin()
            .args([
                "arena",
                "--out",
                out.to_str().unwrap(),
                "--games",
                "10",
                "--threads",
                threads,
                "--rules",
                "othello,6x6",
            ])
            .args(["--agents", "random", "greedy", "positional:depth=2"])
            .output()
            .unwrap()
            .status;
        assert!(status.success());
        let text = std::fs::read_to_string(out.join("results.csv")).unwrap();
        // Everything but the seconds each side used.
        let mut rows: Vec<String> = text.lines().map(|l| l.rsplitn(3, ',').nth(2).unwrap().to_string()).collect();
        rows.sort();
        rows
    };
    assert_eq!(rows("1"), rows("2"));
}

/// The rows of `results.csv` as fields.
fn rows(dir: &Path) -> Vec<Vec<String>> {
    csv_records(&std::fs::read_to_string(dir.join("results.csv")).unwrap())
}

/// Our own `nboard` and `gtp` modes play as external engines in the arena, every game normal; engines that play
/// an illegal move, hang, or exit mid-game each forfeit with their reason, and the arena completes.
#[test]
fn engines_play_through_both_protocols_and_misbehaving_ones_forfeit() {
    let scratch = temp_run("engines");
    let dir = scratch.path();
    let exe = env!("CARGO_BIN_EXE_othello-zero");
    let nboard = format!("engine:cmd=\"{exe} nboard --agent positional:depth=1\",protocol=nboard");
    let gtp = format!("engine:cmd=\"{exe} gtp --agent greedy\",protocol=gtp");
    let good = dir.join("good");
    let out = bin()
        .args(["arena", "--out", good.to_str().unwrap(), "--games", "4", "--threads", "2", "--rules", "othello,6x6"])
        .args(["--agents", &nboard, &gtp, "random"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let played = rows(&good);
    assert_eq!(played.len(), 12);
    assert!(played.iter().all(|r| r[8] == "normal"), "{played:?}");

    // A GTP engine answering every genmove with a1, one that never answers, one that leaves after three lines.
    let illegal = script(
        dir,
        "illegal.sh",
        "while read -r l; do case \"$l\" in genmove*) printf '= a1\\n\\n';; *) printf '= \\n\\n';; esac; done",
    );
    let hangs = script(dir, "hangs.sh", "while read -r l; do :; done");
    let leaves =
        script(dir, "leaves.sh", "read -r l; printf '= \\n\\n'; read -r l; printf '= \\n\\n'; read -r l; exit 0");
    let broken = dir.join("broken");
    let gtp_engines = [illegal.as_str(), &hangs, &leaves, "true", "cat"];
    let mut specs: Vec<String> =
        gtp_engines.iter().map(|s| format!("engine:cmd=\"{s}\",protocol=gtp,time=1,startup=1")).collect();
    // An NBoard engine that exits at once, and one that floods its output.
    specs.extend(["true", "yes"].map(|s| format!("engine:cmd=\"{s}\",protocol=nboard,time=1,startup=1")));
    let out = bin()
        .args(["arena", "--out", broken.to_str().unwrap(), "--games", "2", "--threads", "2", "--rules", "othello,6x6"])
        .args(["--gauntlet", "greedy", "--agents"])
        .args(&specs)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let played = rows(&broken);
    assert_eq!(played.len(), 14);
    let reasons = ["illegal move", "over its time", "closed its pipe", "closed its pipe", "malformed reply"];
    for (spec, reason) in specs.iter().zip(reasons.into_iter().chain(["closed its pipe", "over its time|flooded"])) {
        let games: Vec<&Vec<String>> = played.iter().filter(|r| r[2] == *spec || r[3] == *spec).collect();
        assert_eq!(games.len(), 2);
        for r in games {
            let engine_black = r[2] == *spec;
            assert_eq!(r[8], "forfeit", "{r:?}");
            assert!(reason.split('|').any(|reason| r[9].contains(reason)), "{reason}: {r:?}");
            assert_eq!(r[7], if engine_black { "0" } else { "1" }, "the engine loses: {r:?}");
        }
    }
}

/// `play` at a pipe: a person (this test) answers each prompt with a listed move, after one line that is not a move,
/// until the game ends. Every listed set of moves is the rules' own for the position reached so far, and the
/// transcript printed at the end replays to the score printed.
#[test]
fn a_person_plays_an_agent_to_the_end_through_the_terminal() {
    use othello_core::{Game, Rules, Status};
    use std::io::{BufRead, BufReader, Write};
    let rules = Rules::othello().with_size(6).unwrap();
    let mut child = bin()
        .args(["play", "--agent", "positional:depth=2", "--color", "white", "--rules", "othello,6x6"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut listed: Vec<String> = Vec::new();
    let (mut score, mut transcript, mut nonsense, mut complaints) = (None, None, 0, 0);
    // At every third turn the person first types a line that is not a move: answered, and the same moves listed
    // again, to which the person then answers with a move.
    let mut relisting = false;
    for line in BufReader::new(child.stdout.take().unwrap()).lines() {
        let line = line.unwrap();
        complaints += usize::from(line.contains("'nonsense' is not a move"));
        if let Some(moves) = line.strip_prefix("legal moves: ") {
            let first = moves.split(' ').next().unwrap();
            if relisting {
                assert_eq!(Some(moves), listed.last().map(String::as_str));
                relisting = false;
                writeln!(stdin, "{first}").unwrap();
                continue;
            }
            listed.push(moves.to_string());
            if listed.len() % 3 == 1 {
                writeln!(stdin, "nonsense").unwrap();
                (relisting, nonsense) = (true, nonsense + 1);
            } else {
                writeln!(stdin, "{first}").unwrap();
            }
        } else if let Some(s) = line.strip_prefix("game over: ") {
            score = Some(s.to_string());
        } else if let Some(t) = line.strip_prefix("transcript: ") {
            transcript = Some(t.to_string());
        }
    }
    assert!(child.wait().unwrap().success());
    assert_eq!(complaints, nonsense);
    let transcript = transcript.expect("a transcript at the end");
    let game = Game::from_transcript(rules, &transcript).unwrap();
    assert!(game.is_over(), "{transcript}");
    let o = game.outcome();
    assert!(score.unwrap().starts_with(&format!("black {} white {}", o.black, o.white)));
    // The positions where white (the person) had a choice, in order, and the moves listed at each.
    let choices: Vec<String> = game
        .positions()
        .iter()
        .filter(|p| p.side == othello_core::Color::White)
        .filter_map(|p| match rules.status(p) {
            Status::Moves(m) => Some(m.map(|s| s.to_string()).collect::<Vec<_>>().join(" ")),
            _ => None,
        })
        .collect();
    assert_eq!(listed, choices);
}
