//! The arena against a real engine, GRhino (Debian's `grhino`, installed when missing): every game played to its
//! end, forced passes included; a crash answered by a restart; an engine's clock for the game; its standard error
//! in the arena's log; a run's ladder with its levels.

use std::path::Path;

mod common;
use common::{bin, csv_records, grhino, script, temp_run};

fn arena(dir: &Path, games: &str, agents: &[&str]) -> std::process::Output {
    let out = bin()
        .args(["arena", "--out", dir.to_str().unwrap(), "--games", games, "--threads", "2", "--agents"])
        .args(agents)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    out
}

fn rows(dir: &Path) -> Vec<Vec<String>> {
    csv_records(&std::fs::read_to_string(dir.join("results.csv")).unwrap())
}

/// Whether a stored game has a pass with moves after it (a forced pass in mid-game, which GRhino is told without
/// its pass command).
fn passes_in_midgame(dir: &Path, key: &str) -> bool {
    let record = std::fs::read_to_string(othello_eval::arena::ArenaDir::new(dir).game_file(key)).unwrap();
    let moves: Vec<&str> = record.split(['B', 'W']).filter_map(|m| m.strip_prefix('[')?.split(']').next()).collect();
    moves.iter().rposition(|m| m.starts_with("PA")).is_some_and(|last| last + 1 < moves.len())
}

/// GRhino by its name and through the generic spec, against players that let passes happen: every game normal,
/// some with passes in mid-game, GRhino's refusal of the pass command in the log, and GRhino stronger than random
/// play.
#[test]
fn grhino_plays_every_game_to_the_end_passes_included() {
    let Some(program) = grhino("grhino_plays_every_game_to_the_end_passes_included") else { return };
    let scratch = temp_run("grhino");
    let dir = scratch.path();
    let generic = format!("engine:cmd=\"{} -l 2\",protocol=gtp", program.display());
    let agents = ["grhino:level=1", &generic, "random", "greedy"];
    arena(dir, "8", &agents);
    let played = rows(dir);
    assert_eq!(played.len(), 6 * 8);
    assert!(played.iter().all(|r| r[8] == "normal"), "{:?}", played.iter().find(|r| r[8] != "normal"));
    let with_grhino: Vec<&Vec<String>> =
        played.iter().filter(|r| [&r[2], &r[3]].iter().any(|p| !["random", "greedy"].contains(&p.as_str()))).collect();
    let passes = with_grhino.iter().filter(|r| passes_in_midgame(dir, &r[0])).count();
    assert!(passes > 0, "no game of GRhino's has a pass in mid-game");
    let log = std::fs::read_to_string(dir.join("engines.log")).unwrap();
    assert!(log.contains("grhino:level=1 in ") && log.contains("refused a pass"), "{log}");
    let score_against_random = |spec: &str| {
        let scores: Vec<f64> = played
            .iter()
            .filter_map(|r| match (r[2].as_str(), r[3].as_str()) {
                (black, "random") if black == spec => r[7].parse().ok(),
                ("random", white) if white == spec => r[7].parse().ok().map(|s: f64| 1.0 - s),
                _ => None,
            })
            .collect();
        scores.iter().sum::<f64>() / scores.len() as f64
    };
    assert!(score_against_random(&generic) >= 0.8, "{}", score_against_random(&generic));
}

/// An engine that dies mid-game (here GRhino whose input ends after 30 lines the first time it runs, so that it
/// exits, the script saying why on standard error) is started again, told the game so far, and plays on: no
/// forfeit, its last words and the restart in the log.
#[test]
fn a_crashed_engine_is_started_again_and_the_game_goes_on() {
    let Some(program) = grhino("a_crashed_engine_is_started_again_and_the_game_goes_on") else { return };
    let scratch = temp_run("grhino-crash");
    let dir = scratch.path();
    let mark = dir.join("crashed-once");
    let body = format!(
        "if mkdir '{mark}' 2>/dev/null; then\n\
         n=0; while read -r line && [ $n -lt 30 ]; do n=$((n+1)); printf '%s\\n' \"$line\"; done | '{grhino}' -l 1\n\
         echo 'lost its input' >&2; exit 3\n\
         fi\n\
         exec '{grhino}' -l 1",
        mark = mark.display(),
        grhino = program.display()
    );
    let engine = format!("engine:cmd=\"{}\",protocol=gtp", script(dir, "crashes-once.sh", &body));
    let out = dir.join("arena");
    arena(&out, "1", &[&engine, "greedy"]);
    let played = rows(&out);
    assert_eq!(played.len(), 2);
    assert!(played.iter().all(|r| r[8] == "normal"), "{played:?}");
    let log = std::fs::read_to_string(out.join("engines.log")).unwrap();
    assert!(log.contains("lost its input"), "{log}");
    assert!(log.contains("exit status: 3") && log.contains("started again and told the game so far"), "{log}");
}

/// An engine given a total for the game (`total=`) loses on time once its moves together pass it, though each
/// move is well within the move's limit.
#[test]
fn an_engine_over_its_time_for_the_game_forfeits() {
    let scratch = temp_run("engine-clock");
    let exe = env!("CARGO_BIN_EXE_othello-zero");
    // A rollout search of millions of simulations takes about a second a move.
    let slow = format!("engine:cmd=\"{exe} gtp --agent mcts:sims=2000000\",protocol=gtp,time=60,total=2");
    arena(scratch.path(), "1", &[&slow, "greedy"]);
    for r in rows(scratch.path()) {
        assert_eq!(r[8], "forfeit", "{r:?}");
        assert!(r[9].contains("over its time"), "{r:?}");
    }
}

/// An engine's start-up is not on the game's clock: one that takes 1.5 s to start, with a second for the whole game
/// and five to start, plays its games to the end.
#[test]
fn an_engines_start_up_is_not_on_its_clock() {
    let scratch = temp_run("engine-startup");
    let exe = env!("CARGO_BIN_EXE_othello-zero");
    let slow_start = script(scratch.path(), "slow-start", &format!("sleep 1.5\nexec {exe} gtp --agent greedy"));
    let engine = format!("engine:cmd=\"{slow_start}\",protocol=gtp,startup=5,total=1");
    arena(&scratch.path().join("arena"), "1", &[&engine, "random"]);
    let rows = rows(&scratch.path().join("arena"));
    assert_eq!(rows.len(), 2);
    assert!(rows.iter().all(|r| r[8] == "normal"), "{rows:?}");
}

/// An engine runs in a process group of its own, ended whole with it: what a wrapper script started beside the
/// engine does not outlive the games.
#[test]
fn an_engines_helpers_end_with_it() {
    let scratch = temp_run("engine-group");
    let exe = env!("CARGO_BIN_EXE_othello-zero");
    let pids = scratch.path().join("helpers");
    let body = format!("sleep 300 &\necho $! >> {}\nexec {exe} gtp --agent greedy", pids.display());
    let engine = format!("engine:cmd=\"{}\",protocol=gtp", script(scratch.path(), "wrapper.sh", &body));
    arena(&scratch.path().join("arena"), "2", &[&engine, "random"]);
    let helpers: Vec<String> = std::fs::read_to_string(&pids).unwrap().lines().map(str::to_string).collect();
    assert!(!helpers.is_empty());
    // A killed process whose parent is gone may stay a zombie where nothing reaps orphans: dead all the same.
    let running = |pid: &String| {
        let stat = std::fs::read_to_string(Path::new("/proc").join(pid).join("stat")).unwrap_or_default();
        stat.rsplit_once(") ").is_some_and(|(_, rest)| !rest.starts_with('Z'))
    };
    let alive = || helpers.iter().any(running);
    assert!(
        common::poll_until(std::time::Duration::from_secs(5), || !alive()),
        "helpers {helpers:?} outlived the arena"
    );
}

/// An engine flooding its standard error fills no disk: the arena's log keeps the head and the tail of each
/// engine process's, saying how many lines it left out.
#[test]
fn a_flood_of_standard_error_is_cut_to_its_head_and_tail() {
    let scratch = temp_run("engine-flood");
    let exe = env!("CARGO_BIN_EXE_othello-zero");
    let body = format!(
        "yes 'flooding standard error' | head -n 2000000 >&2\necho last words >&2\nexec {exe} gtp --agent greedy"
    );
    let engine = format!("engine:cmd=\"{}\",protocol=gtp,startup=60", script(scratch.path(), "flood.sh", &body));
    arena(&scratch.path().join("arena"), "2", &[&engine, "random"]);
    let log = std::fs::read_to_string(scratch.path().join("arena").join("engines.log")).unwrap();
    assert!(log.len() < 4 << 20, "{} bytes of log for 52 MB of standard error", log.len());
    assert!(
        log.contains("lines of standard error left out here") && log.contains(": last words"),
        "{}",
        &log[log.len() - 500..]
    );
}

/// A GTP engine whose replies lack their ending empty line forfeits at once, saying so, rather than after its
/// time runs out waiting for a line that never comes.
#[test]
fn a_gtp_reply_without_its_empty_line_is_a_fault_at_once() {
    let scratch = temp_run("gtp-no-blank");
    let body = "while read -r command; do case \"$command\" in genmove*) echo '= d3';; *) echo '=';; esac; done";
    let engine = format!("engine:cmd=\"{}\",protocol=gtp,time=30", script(scratch.path(), "no-blank.sh", body));
    let started = std::time::Instant::now();
    arena(&scratch.path().join("arena"), "2", &[&engine, "random"]);
    assert!(started.elapsed() < std::time::Duration::from_secs(20), "{:?}", started.elapsed());
    let rows = rows(&scratch.path().join("arena"));
    assert!(rows.iter().all(|r| r[9].contains("is not ended by an empty line, as GTP requires")), "{rows:?}");
}

/// A program that is not there stops the arena before any game, naming it.
#[test]
fn a_missing_program_is_refused_before_any_game() {
    let scratch = temp_run("engine-missing");
    let out = bin()
        .args(["arena", "--out", scratch.path().to_str().unwrap(), "--agents", "greedy"])
        .arg("engine:cmd=\"no-such-engine -l 3\",protocol=gtp")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("'no-such-engine' is not on the PATH"), "{stderr}");
    assert!(!scratch.path().join("results.csv").exists());
}

/// An NBoard engine that says more than its moves, as Edax does (status and node-count lines around each move):
/// only the `===` line counts, and every game ends normally.
#[test]
fn an_nboard_engines_status_and_node_counts_are_passed_over() {
    let scratch = temp_run("nboard-chatter");
    let exe = env!("CARGO_BIN_EXE_othello-zero");
    let chatter = "while IFS= read -r line; do case \"$line\" in ===*) echo 'status thinking'; \
                   echo 'nodestats 12345 0.01';; esac; printf '%s\\n' \"$line\"; done";
    let body = format!("'{exe}' nboard --agent positional:depth=1 | {chatter}");
    let engine = format!("engine:cmd=\"{}\",protocol=nboard", script(scratch.path(), "chatty.sh", &body));
    let out = scratch.path().join("arena");
    arena(&out, "2", &[&engine, "greedy"]);
    let played = rows(&out);
    assert_eq!(played.len(), 2);
    assert!(played.iter().all(|r| r[8] == "normal"), "{played:?}");
}

/// A run's evaluation stage with GRhino's levels on its ladder (as the 8x8 configs have them): the checkpoint
/// meets a level, every game ends normally, and the ratings table, its JSON and its picture mark GRhino's rungs as
/// external and no other player.
#[test]
fn a_runs_ladder_rates_its_checkpoint_against_grhino() {
    let Some(program) = grhino("a_runs_ladder_rates_its_checkpoint_against_grhino") else { return };
    let scratch = temp_run("grhino-ladder");
    let run = scratch.path().join("run");
    let dir = othello_run::RunDir::new(&run);
    let models = dir.models();
    std::fs::create_dir_all(&models).unwrap();
    let networks = Path::new(env!("CARGO_MANIFEST_DIR")).join("networks/othello-8x8");
    for ext in ["json", "bpk"] {
        std::fs::copy(networks.join(format!("model.{ext}")), models.join(format!("model-000000000.{ext}"))).unwrap();
    }
    // The 8x8 CPU config, without the solver's questions and the final player: the ladder is what is tested.
    let cpu = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/8x8-cpu.toml")).unwrap();
    let config = ["optimal_moves_empties = ", "final_player_sims = "].iter().fold(cpu, |text, key| {
        assert!(text.contains(key), "configs/8x8-cpu.toml has no {key}");
        text.replace(key, &format!("# {key}"))
    });
    let config_path = scratch.path().join("8x8.toml");
    std::fs::write(&config_path, config).unwrap();
    let levels = [1, 2].map(|level| format!("grhino:level={level},cmd=\"{}\"", program.display()));
    let out = bin()
        .args(["evaluate", "--run", run.to_str().unwrap(), "--config", config_path.to_str().unwrap()])
        .args(["--games", "2", "--sims", "8", "--threads", "2", "--ladder", "greedy", &levels[0], &levels[1]])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let eval = dir.eval();
    let played = rows(&eval);
    assert!(played.iter().all(|r| r[8] == "normal"), "{played:?}");
    let met = |rung: &str| played.iter().any(|r| r[2] == rung || r[3] == rung);
    assert!(levels.iter().any(|level| met(level)), "no game against GRhino: {played:?}");
    let table: Vec<&str> = stdout.lines().filter(|l| l.contains("grhino:") || l.contains("greedy")).collect();
    for line in &table {
        assert_eq!(line.contains("(external)"), line.contains("grhino:"), "{stdout}");
    }
    let ratings = std::fs::read_to_string(eval.join("ratings.json")).unwrap();
    assert!(levels.iter().filter(|l| met(l)).all(|l| ratings.contains(&l.replace('"', "\\\""))), "{ratings}");
    let svg = std::fs::read_to_string(eval.join("ratings.svg")).unwrap();
    assert!(svg.contains("(external)"), "GRhino's rung is not marked in the picture");
}
