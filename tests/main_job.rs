//! End-to-end tests of the main job, `run`: its stages start themselves, every checkpoint is rated, and a
//! `kill -9` leaves no stage running.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use othello_eval::arena::{sweep, ArenaDir, Sweep};
use othello_net::read_info;
use othello_run::RunDir;

mod common;
use common::{bin, poll_until, temp_run};

/// The main job on the CI config (4x4, a tiny network): self-play, the trainer and the evaluation stage start
/// themselves, the trainer stops at its steps, and every checkpoint is rated in RUN/eval with its picture.
#[test]
fn the_main_job_trains_and_rates_its_checkpoints() {
    let scratch = temp_run("main-job");
    let run = scratch.path();
    let config = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/ci.toml");
    let out = bin()
        .args(["run", "--run", run.to_str().unwrap(), "--config", config.to_str().unwrap(), "--threads", "2"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let dir = RunDir::new(run);
    let info = read_info(&dir.models().join("model-000000120.json")).unwrap();
    let training = info.training.unwrap();
    // The throttle held: no more than 4 samples per self-play position that had arrived.
    assert!(info.samples as f64 <= 4.0 * training.positions_seen as f64, "{training:?}");
    let log = std::fs::read_to_string(dir.stage_log("train")).unwrap();
    assert!(
        log.contains("checkpoint") && log.contains("stopped at step 120 (7680 samples): its step limit reached"),
        "{log}"
    );
    // Every checkpoint rated against the ladder; the ratings and their picture written.
    let ratings: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.eval().join("ratings.json")).unwrap()).unwrap();
    let players: Vec<&str> =
        ratings["ratings"].as_array().unwrap().iter().map(|r| r["player"].as_str().unwrap()).collect();
    // The initialisation (step 0) too: the curve begins where learning does.
    for step in [0, 40, 80, 120] {
        assert!(players.iter().any(|p| p.contains(&format!("model-{step:09}"))), "step {step} unrated: {players:?}");
    }
    assert!(players.contains(&"random") && players.contains(&"greedy"), "{players:?}");
    // Each checkpoint met the one rated before it (in the order the stage began them: the newest first when it
    // fell behind) and the ladder from one rung outward: a rung it skipped lies beyond a pairing it won or lost
    // whole.
    let rows = ArenaDir::new(dir.eval()).read().unwrap();
    let by_key = rows.iter().map(|r| (r.key.as_str(), r)).collect();
    let names = |r: &othello_eval::arena::ResultRow| (r.black.to_string(), r.white.to_string());
    let met = |a: &str, b: &str| {
        rows.iter().map(names).any(|(black, white)| (black == a && white == b) || (black == b && white == a))
    };
    let mut checkpoints: Vec<&str> = [0, 40, 80, 120]
        .map(|step| *players.iter().find(|p| p.contains(&format!("model-{step:09}"))).unwrap())
        .to_vec();
    checkpoints.sort_by_key(|c| rows.iter().map(names).position(|(black, white)| black == *c || white == *c));
    for (i, &checkpoint) in checkpoints.iter().enumerate() {
        assert!(i == 0 || met(checkpoint, checkpoints[i - 1]), "{checkpoint} and the checkpoint before it");
        let rungs: Vec<&str> = ["random", "greedy"].into_iter().filter(|rung| met(checkpoint, rung)).collect();
        assert!(!rungs.is_empty(), "{checkpoint} met no rung");
        if rungs.len() < 2 {
            let spec = |name: &str| name.parse::<othello_players::AgentSpec>().expect("a stored player is a spec");
            let whole = sweep(&by_key, &spec(checkpoint), &spec(rungs[0]), 4).unwrap();
            assert!(matches!(whole, Some(Sweep::AllWon | Sweep::AllLost)), "{checkpoint}: {whole:?} against {rungs:?}");
        }
    }
    let svg = std::fs::read_to_string(dir.eval().join("ratings.svg")).unwrap();
    assert!(svg.contains("training step") && svg.contains("self-play positions") && svg.contains("random"));
    // The Elo of every rated checkpoint went to TensorBoard, in a run of its own beside the trainer's.
    let mut elo_points = 0;
    for entry in std::fs::read_dir(dir.eval_logs()).unwrap() {
        let bytes = std::fs::read(entry.unwrap().path()).unwrap();
        elo_points += bytes.windows(14).filter(|w| w == b"elo_interval95").count();
    }
    assert!(elo_points >= 3, "{elo_points} Elo points in RUN/logs/eval");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("rank") && stdout.contains("Elo"), "the ratings table at the end: {stdout}");
    // Every player's moves against the solver (`optimal_moves_empties`): one record each, all on one fixed set of
    // positions of the same size (`optimal_moves_positions`), the rate inside its interval, the checkpoints drawn.
    let eval = ArenaDir::new(dir.eval());
    let records = eval.read_optimal_moves().unwrap();
    assert_eq!(records.len(), players.len(), "{records:?}");
    for player in &players {
        let r =
            records.iter().find(|r| r.player.to_string() == *player).unwrap_or_else(|| panic!("{player}: {records:?}"));
        let (low, high) = r.report.optimal_interval();
        let (optimal, kept) = (r.report.optimal_rate(), r.report.result_kept_rate());
        assert!(
            r.report.positions >= 1 && low <= optimal && optimal <= high && optimal <= kept && kept <= 1.0,
            "{r:?}"
        );
        assert_eq!((r.report.positions, &r.position_set), (records[0].report.positions, &records[0].position_set));
    }
    assert!(records[0].position_set.starts_with("fixed-"), "{records:?}");
    assert!(stdout.contains("against the solver"), "the optimal-move table at the end: {stdout}");
    let svg = std::fs::read_to_string(dir.eval().join("optimal-moves.svg")).unwrap();
    assert!(svg.contains("optimal moves (%) against training step") && svg.contains("perfect play"));
    // The run's end sums up what it learnt, from the initialisation to the last checkpoint.
    let learnt = stderr.lines().find(|l| l.starts_with("learnt: ")).unwrap_or_else(|| panic!("{stderr}"));
    assert!(
        learnt.contains("(step 0) -> ") && learnt.contains("(step 120)") && learnt.contains("(random +0"),
        "{learnt}"
    );
    assert!(learnt.contains("; the solver's move "), "{learnt}");
    // Each checkpoint was put to them once, as it was rated or at the end, its rate sent to TensorBoard then.
    let mut optimal_points = 0;
    for entry in std::fs::read_dir(dir.eval_logs()).unwrap() {
        let bytes = std::fs::read(entry.unwrap().path()).unwrap();
        optimal_points += bytes.windows(13).filter(|w| w == b"optimal_moves").count();
    }
    assert!((1..=4).contains(&optimal_points), "{optimal_points} optimal-move points in RUN/logs/eval");
    // Evaluated again, nothing is played, asked or solved: the stored games and records are the evaluation's.
    let csv = std::fs::read_to_string(eval.optimal_moves_csv()).unwrap();
    let out = bin()
        .args(["evaluate", "--run", run.to_str().unwrap(), "--config", config.to_str().unwrap()])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(!stderr.contains("positions each") && !stderr.contains("the solver's move in"), "{stderr}");
    assert!(!stderr.contains("solving"), "{stderr}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("against the solver"));
    assert_eq!(std::fs::read_to_string(eval.optimal_moves_csv()).unwrap(), csv);
    // A copy of the run, one checkpoint of it damaged: its games and records are the copy's (the records keyed by
    // the checkpoint's path under the run), nothing is asked again, and no record is lost.
    let copy = run.with_extension("copy");
    assert!(std::process::Command::new("cp").arg("-a").arg(run).arg(&copy).status().unwrap().success());
    let copied = RunDir::new(&copy);
    std::fs::OpenOptions::new()
        .write(true)
        .open(copied.models().join("model-000000120.bpk"))
        .unwrap()
        .set_len(1000)
        .unwrap();
    let out = bin().args(["evaluate", "--run", copy.to_str().unwrap()]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(!stderr.contains("positions each") && !stderr.contains("left out"), "{stderr}");
    let copied_records = ArenaDir::new(copied.eval()).read_optimal_moves().unwrap();
    assert_eq!(copied_records.len(), players.len(), "{copied_records:?}");
    let damaged =
        copied_records.iter().find(|r| r.player.to_string().contains("model-000000120")).expect("step 120's record");
    assert!(damaged.player.to_string().contains(copy.to_str().unwrap()), "named under the copy: {}", damaged.player);
    std::fs::remove_dir_all(&copy).unwrap();
    // A mistyped run directory is an error, and nothing is written there.
    let typo = run.with_extension("typo");
    let out = bin().args(["evaluate", "--run", typo.to_str().unwrap()]).output().unwrap();
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("no such run directory"));
    assert!(!typo.exists());
    // Rules other than the run's are refused, not ignored.
    let out = bin().args(["evaluate", "--run", run.to_str().unwrap(), "--rules", "othello"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && stderr.contains("--rules othello,8x8: these games are played under othello,4x4"));
    // Another config given to a run that has its own is refused: the run's config.toml is the one truth.
    let fewer = run.join("fewer-positions.toml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(&fewer, text.clone() + "optimal_moves_positions = 10\n").unwrap();
    let out =
        bin().args(["evaluate", "--run", run.to_str().unwrap(), "--config", fewer.to_str().unwrap()]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && stderr.contains("the run's own config"), "{stderr}");
    // Other positions (fewer of them), set in the run's config: no record of them is stored, every player is asked
    // again; the records of the earlier positions are kept.
    std::fs::write(dir.config(), text + "optimal_moves_positions = 10\n").unwrap();
    let out = bin().args(["evaluate", "--run", run.to_str().unwrap()]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains(&format!("{} players, 10 positions each", players.len())), "{stderr}");
    let again: Vec<_> = eval.read_optimal_moves().unwrap().into_iter().filter(|r| r.report.positions == 10).collect();
    assert_eq!(again.len(), players.len(), "{again:?}");
    assert_eq!(eval.read_optimal_moves().unwrap().len(), 2 * players.len(), "the earlier records kept");
    // The positions' values are stored beside the records (the header and one line each): asked again without the
    // records, every player answers and nothing is solved; a damaged file is named and solved again.
    let fixed = std::fs::read_to_string(eval.fixed_positions_csv()).unwrap();
    assert_eq!(fixed.lines().count(), 11, "{fixed}");
    std::fs::remove_file(eval.optimal_moves_csv()).unwrap();
    let evaluate_fewer = || {
        let out = bin().args(["evaluate", "--run", run.to_str().unwrap()]).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).to_string();
        assert!(out.status.success(), "{stderr}");
        assert!(stderr.contains(&format!("{} players, 10 positions each", players.len())), "{stderr}");
        assert_eq!(eval.read_optimal_moves().unwrap(), again);
        std::fs::remove_file(eval.optimal_moves_csv()).unwrap();
        stderr
    };
    assert!(!evaluate_fewer().contains("solving"));
    let mut damaged: Vec<&str> = fixed.lines().collect();
    damaged[3] = "othello,x";
    std::fs::write(eval.fixed_positions_csv(), damaged.join("\n")).unwrap();
    let stderr = evaluate_fewer();
    assert!(stderr.contains("fixed-positions.csv, line 4") && stderr.contains("solving"), "{stderr}");
    assert_eq!(std::fs::read_to_string(eval.fixed_positions_csv()).unwrap(), fixed);
    // The final player: the newest checkpoint rated once more with a search of its own, against the same
    // checkpoint with the evaluation's search and the ladder (from the rung nearest that checkpoint), and put to
    // the same positions beside every player; evaluated again, nothing is played or asked.
    let text = std::fs::read_to_string(dir.config()).unwrap();
    std::fs::write(dir.config(), text + "final_player_sims = 32\n").unwrap();
    let evaluate_final = || {
        let args = ["evaluate", "--run", run.to_str().unwrap()];
        let out = bin().args(args).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    };
    evaluate_final();
    let newest = players.iter().find(|p| p.contains("model-000000120")).unwrap();
    let final_player = newest.replace(",sims=8,", ",sims=32,");
    assert_ne!(&final_player, newest);
    let rows = eval.read().unwrap();
    let opponents: Vec<String> = rows
        .iter()
        .map(names)
        .filter_map(|(black, white)| match (black == final_player, white == final_player) {
            (true, _) => Some(white),
            (_, true) => Some(black),
            _ => None,
        })
        .collect();
    let against_newest = opponents.iter().filter(|o| o == newest).count();
    assert_eq!(against_newest, 4, "the ladder's games a pairing: {opponents:?}");
    let ladder: Vec<&String> = opponents.iter().filter(|o| o != newest).collect();
    assert!(!ladder.is_empty() && ladder.iter().all(|o| ["random", "greedy"].contains(&o.as_str())), "{opponents:?}");
    let ratings = std::fs::read_to_string(dir.eval().join("ratings.json")).unwrap();
    assert!(ratings.contains(&final_player.replace('"', "\\\"")), "{ratings}");
    let records = eval.read_optimal_moves().unwrap();
    let record = records.iter().find(|r| r.player.to_string() == final_player).unwrap_or_else(|| panic!("{records:?}"));
    assert_eq!((records.len(), record.report.positions), (players.len() + 1, 10));
    let (results, csv) =
        (std::fs::read_to_string(eval.results()).unwrap(), std::fs::read_to_string(eval.optimal_moves_csv()).unwrap());
    evaluate_final();
    assert_eq!(std::fs::read_to_string(eval.results()).unwrap(), results);
    assert_eq!(std::fs::read_to_string(eval.optimal_moves_csv()).unwrap(), csv);

    // Gating: the first checkpoint is the first best, each later one is tested against the best of its moment,
    // and the best is the last one accepted, also where the newest checkpoint was rated first (as a watching
    // evaluation that fell behind rates it): the evaluation begins afresh with the newest alone.
    std::fs::remove_dir_all(dir.eval()).unwrap();
    let aside = run.join("aside");
    std::fs::create_dir(&aside).unwrap();
    let older: Vec<String> =
        [0, 40, 80].iter().flat_map(|step| ["json", "bpk"].map(|ext| format!("model-{step:09}.{ext}"))).collect();
    for name in &older {
        std::fs::rename(dir.models().join(name), aside.join(name)).unwrap();
    }
    std::fs::copy(&config, dir.config()).unwrap();
    let out = bin().args(["evaluate", "--run", run.to_str().unwrap()]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    for name in &older {
        std::fs::rename(aside.join(name), dir.models().join(name)).unwrap();
    }
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(dir.config(), text + "gating = true\ngating_pairs = 6\n").unwrap();
    let out = bin().args(["evaluate", "--run", run.to_str().unwrap()]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut expected = "model-000000000.json".to_string();
    for step in [40, 80, 120] {
        let stem = format!("model-{step:09}");
        let Ok(text) = std::fs::read_to_string(dir.gate(&stem).join("sprt.json")) else {
            continue; // not newer than the best when its turn came
        };
        let test: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert!(test["pairs"].as_u64().unwrap() <= 6, "{test}");
        if test["decision"] == "H1" {
            expected = format!("{stem}.json");
        }
    }
    let best = std::fs::read_to_string(dir.best_checkpoint_record()).unwrap();
    assert_eq!(best.trim(), expected);
}

/// A `kill -9` of the main job stops every stage it started within seconds: the three of the run, and the rating
/// of the newest checkpoint once the time is up. Each stage is found in /proc by the run directory on its command
/// line.
#[cfg(target_os = "linux")]
#[test]
fn a_killed_main_job_leaves_no_stage_running() {
    use std::io::BufRead;
    let scratch = temp_run("main-job-killed");
    let run = scratch.path();
    let stages = || -> Vec<String> {
        let needle = run.to_str().unwrap();
        std::fs::read_dir("/proc")
            .unwrap()
            .filter_map(|entry| {
                let entry = entry.ok()?;
                entry.file_name().to_str()?.parse::<u32>().ok()?;
                let line =
                    String::from_utf8_lossy(&std::fs::read(entry.path().join("cmdline")).ok()?).replace('\0', " ");
                line.contains(needle).then_some(line)
            })
            .collect()
    };
    let kill_and_look = |mut main_job: std::process::Child| {
        std::thread::sleep(Duration::from_secs(2));
        main_job.kill().unwrap(); // SIGKILL
        main_job.wait().unwrap();
        poll_until(Duration::from_secs(10), || stages().is_empty());
        let left = stages();
        assert!(left.is_empty(), "still running after the run was killed: {left:?}");
    };
    // Ratings of thousands of games, so that the last one is still going when `run` is killed, and the config's
    // minutes fewer than the stretches below give the run.
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/ci.toml")).unwrap();
    assert!(text.contains("games = 4\n") && text.contains("minutes = 1\n"), "configs/ci.toml's keys changed here");
    let config = run.join("long-ratings.toml");
    std::fs::write(&config, text.replace("games = 4\n", "games = 4000\n").replace("minutes = 1\n", "minutes = 0.25\n"))
        .unwrap();
    let start = |minutes: Option<&str>| {
        let mut child = bin()
            .args(["run", "--run", run.to_str().unwrap(), "--config", config.to_str().unwrap()])
            .args(["--threads", "2", "--steps", "0"])
            .args(minutes.map(|m| ["--minutes", m]).iter().flatten())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let (lines, received) = std::sync::mpsc::channel();
        let stderr = std::io::BufReader::new(child.stderr.take().unwrap());
        std::thread::spawn(move || stderr.lines().map_while(Result::ok).try_for_each(|line| lines.send(line)));
        (child, received)
    };

    // During the run: self-play, the trainer and the watching evaluation.
    // Its output is kept unread, not dropped: a closed pipe would end `run` (SIGPIPE) before the kill.
    let (main_job, _unread) = start(Some("10"));
    poll_until(Duration::from_secs(60), || stages().len() >= 4);
    assert_eq!(stages().len(), 4, "run and its three stages: {:?}", stages());
    kill_and_look(main_job);

    // Ctrl-C (SIGINT to `run` alone, as a scheduler's SIGTERM): it stops its stages itself, says how to resume and
    // exits as a shell does.
    let (mut main_job, lines) = start(Some("10"));
    poll_until(Duration::from_secs(60), || stages().len() >= 4);
    let sent = std::process::Command::new("kill").args(["-INT", &main_job.id().to_string()]).status().unwrap();
    assert!(sent.success());
    let said: Vec<String> = lines.iter().collect();
    assert_eq!(main_job.wait().unwrap().code(), Some(130), "{said:?}");
    assert!(said.last().is_some_and(|l| l.contains("resumes where it stopped")), "{said:?}");
    assert!(stages().is_empty(), "still running after Ctrl-C: {:?}", stages());

    // After the time is up: the rating of the newest checkpoint, begun by the rerun that resumes the run.
    let (main_job, lines) = start(Some("0.5"));
    let said = lines.iter().take_while(|line| !line.contains("rating the newest checkpoint")).collect::<Vec<_>>();
    let final_rating = || stages().iter().any(|s| s.contains(" evaluate ") && !s.contains("--watch"));
    assert!(poll_until(Duration::from_secs(60), final_rating), "no final rating began: {said:?} {:?}", stages());
    kill_and_look(main_job);

    // Without `--minutes` the config's are the run's in all: the run has had more, so the rerun trains no further
    // and only rates.
    let (main_job, lines) = start(None);
    let rating = lines.iter().find(|line| line.contains("rating the newest checkpoint")).unwrap_or_default();
    assert!(rating.contains("nothing left to train"), "{rating}");
    assert!(poll_until(Duration::from_secs(60), final_rating), "no final rating began: {rating} {:?}", stages());
    let training = stages().into_iter().find(|s| s.contains(" train ") || s.contains(" selfplay "));
    assert_eq!(training, None, "training after the config's minutes");
    kill_and_look(main_job);
}
