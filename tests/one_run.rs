//! One run, one owner, one truth, with real processes: a second `selfplay --worker 0`, a second trainer, a second
//! `run`, a second arena on one directory stop at once naming the holder, and a holder killed with `kill -9` leaves
//! its role to the next claimant, and the stages of a killed `run` stop by themselves; a run keeps the rules and the network its games and checkpoints were made with,
//! whatever its config.toml says.

use std::process::{Child, Output, Stdio};
use std::time::Duration;

use othello_run::RunDir;

mod common;
use common::{bin, poll_until, temp_run};

const CONFIG: &str = "seed = 3\nrules = \"othello,6x6\"\n[selfplay]\nsims = 8\ngames_per_shard = 2\n\
                      evaluator = \"rollouts\"\nrollouts = 1\n[train]\nwindow_min = 1000000\n";

/// A scratch directory holding a run directory with this file's config.
fn run_with_config(name: &str) -> (tempfile::TempDir, RunDir) {
    let scratch = temp_run(name);
    let run = RunDir::new(scratch.path().join("run"));
    std::fs::create_dir_all(run.root()).unwrap();
    std::fs::write(run.config(), CONFIG).unwrap();
    (scratch, run)
}

fn start(args: &[&str]) -> Child {
    bin().args(args).stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap()
}

/// Waits until `child` holds `role` (its pid in the lock file).
fn wait_for_holder(run: &RunDir, role: &str, child: &Child) {
    let pid = format!("pid {},", child.id());
    let held = || std::fs::read_to_string(run.lock(role)).is_ok_and(|text| text.contains(&pid));
    assert!(poll_until(Duration::from_secs(60), held), "{role} never held by {pid}");
}

fn refused(out: &Output, role: &str, holder: &Child) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "a second {role} ran: {err}");
    let named = format!("{role} of ");
    assert!(err.contains(&named) && err.contains(&format!("pid {}, since ", holder.id())), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
}

#[test]
fn a_second_claimant_of_a_role_stops_naming_the_holder_and_a_killed_holders_role_is_taken_over() {
    let (_scratch, run) = run_with_config("one-owner");
    let r = run.root().to_str().unwrap();

    let mut worker = start(&["selfplay", "--run", r, "--games", "0", "--worker", "0"]);
    wait_for_holder(&run, "selfplay-0", &worker);
    let second = bin().args(["selfplay", "--run", r, "--games", "1", "--worker", "0"]).output().unwrap();
    refused(&second, "self-play worker 0", &worker);
    // Another worker id is another role.
    let other = bin().args(["selfplay", "--run", r, "--games", "2", "--worker", "1"]).output().unwrap();
    assert!(other.status.success(), "{}", String::from_utf8_lossy(&other.stderr));

    let mut trainer = start(&["train", "--run", r, "--steps", "0"]);
    wait_for_holder(&run, "trainer", &trainer);
    let second = bin().args(["train", "--run", r, "--steps", "1", "--exit-when-starved"]).output().unwrap();
    refused(&second, "trainer", &trainer);

    // kill -9: the kernel lets go of the lock with the process, and the next claimant holds the role.
    for child in [&mut worker, &mut trainer] {
        child.kill().unwrap();
        child.wait().unwrap();
    }
    let again = bin().args(["selfplay", "--run", r, "--games", "4", "--worker", "0"]).output().unwrap();
    assert!(again.status.success(), "{}", String::from_utf8_lossy(&again.stderr));
    let mut trainer = start(&["train", "--run", r, "--steps", "0"]);
    wait_for_holder(&run, "trainer", &trainer);
    trainer.kill().unwrap();
    trainer.wait().unwrap();
}

#[test]
fn a_second_run_on_a_directory_stops_at_once() {
    let (_scratch, run) = run_with_config("one-run");
    let r = run.root().to_str().unwrap();
    let mut first = start(&["run", "--run", r, "--threads", "1", "--minutes", "5"]);
    wait_for_holder(&run, "run", &first);
    let second = bin().args(["run", "--run", r, "--threads", "1", "--minutes", "5"]).output().unwrap();
    refused(&second, "run", &first);
    first.kill().unwrap();
    first.wait().unwrap();
}

/// Two arenas (or an arena and an SPRT) playing into one directory would each play every missing game, and the
/// games would be stored twice: the second stops at once, naming the first; once the first is gone, it continues.
#[test]
fn a_second_arena_on_a_directory_stops_at_once() {
    let scratch = temp_run("one-arena");
    let dir = scratch.path().join("arena");
    let d = dir.to_str().unwrap();
    let slow = ["arena", "--out", d, "--games", "2000", "--agents", "mcts:sims=20000", "random"];
    let mut first = start(&slow);
    let held = RunDir::new(&dir);
    wait_for_holder(&held, "arena", &first);
    let second = bin().args(["arena", "--out", d, "--games", "2", "--agents", "greedy", "random"]).output().unwrap();
    refused(&second, "arena", &first);
    let sprt = ["sprt", "--out", d, "--candidate", "greedy", "--baseline", "random", "--max-pairs", "1"];
    refused(&bin().args(sprt).output().unwrap(), "arena", &first);
    first.kill().unwrap();
    first.wait().unwrap();
    let again = bin().args(["arena", "--out", d, "--games", "2", "--agents", "greedy", "random"]).output().unwrap();
    assert!(again.status.success(), "{}", String::from_utf8_lossy(&again.stderr));
}

/// A 4x4 run with games and the trainer's first checkpoint, its config then edited: every stage refuses it, naming
/// what the config says and what the run holds.
#[test]
fn a_run_keeps_its_rules_and_network_whatever_its_config_says() {
    let scratch = temp_run("one-truth");
    let run = RunDir::new(scratch.path().join("run"));
    std::fs::create_dir_all(run.root()).unwrap();
    let config = CONFIG.replace("othello,6x6", "othello,4x4") + "[network]\nblocks = 1\nfilters = 8\n";
    std::fs::write(run.config(), &config).unwrap();
    let r = run.root().to_str().unwrap();
    let stages: [&[&str]; 3] = [
        &["selfplay", "--run", r, "--games", "4"],
        &["train", "--run", r, "--steps", "1", "--exit-when-starved"],
        &["evaluate", "--run", r, "--games", "2"],
    ];
    for stage in &stages[..2] {
        let out = bin().args(*stage).output().unwrap();
        assert!(out.status.success(), "{stage:?}: {}", String::from_utf8_lossy(&out.stderr));
    }
    for (edit, says, holds) in [
        (("othello,4x4", "othello,6x6"), "rules = \"othello,6x6\"", "checkpoints trained under othello,4x4"),
        (("filters = 8", "filters = 16"), "[network] makes 1x16", "checkpoints of 1x8"),
    ] {
        std::fs::write(run.config(), config.replace(edit.0, edit.1)).unwrap();
        for stage in stages {
            let out = bin().args(stage).output().unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(!out.status.success(), "{stage:?} ran on the edited config");
            assert!(err.contains(says) && err.contains(holds) && err.contains("a run keeps its rules"), "{err}");
        }
    }
    // Without a checkpoint, the games alone tell the rules.
    std::fs::write(run.config(), config.replace("othello,4x4", "othello,6x6")).unwrap();
    std::fs::remove_dir_all(run.models()).unwrap();
    let out = bin().args(stages[0]).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("holds games of othello,4x4"), "{out:?}");
    // Without its config, a run with games is refused rather than given the embedded 6x6 default.
    std::fs::remove_file(run.config()).unwrap();
    let out = bin().args(stages[0]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("holds games or checkpoints but no config.toml"), "{err}");
    assert!(!run.config().exists());
    // A quote in the run's path would break the specs that name its checkpoints: refused by every stage.
    let quoted = scratch.path().join("a\"b");
    std::fs::create_dir_all(&quoted).unwrap();
    for stage in ["selfplay", "train", "evaluate"] {
        let out = bin().args([stage, "--run", quoted.to_str().unwrap()]).output().unwrap();
        assert!(String::from_utf8_lossy(&out.stderr).contains("a run directory's path may not hold '\"'"), "{out:?}");
    }
    // WTHOR's 8x8 games go into 8x8 Othello runs alone.
    std::fs::write(run.config(), &config).unwrap();
    let wthor = common::data("wthor/WTH_1985.wtb");
    let out = bin().args(["import-wthor", wthor.to_str().unwrap(), "--run", r]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("is a run of othello,4x4: WTHOR games are 8x8 Othello"), "{err}");
    let fresh = scratch.path().join("fresh");
    let out = bin().args(["import-wthor", wthor.to_str().unwrap(), "--run", fresh.to_str().unwrap()]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("a new run needs its config"), "{err}");
    let eight = scratch.path().join("8x8.toml");
    std::fs::write(&eight, "rules = \"othello\"\n").unwrap();
    let args = ["import-wthor", wthor.to_str().unwrap(), "--run", fresh.to_str().unwrap(), "--config"];
    let out = bin().args(args).arg(&eight).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

/// The pid that holds `role`, once one does.
fn holder_pid(run: &RunDir, role: &str) -> Option<u32> {
    let text = std::fs::read_to_string(run.lock(role)).ok()?;
    text.split_once("pid ")?.1.split(',').next()?.parse().ok()
}

/// Running, not a zombie that nothing has reaped yet.
fn running(pid: u32) -> bool {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    stat.rsplit_once(") ").is_some_and(|(_, rest)| !rest.starts_with('Z'))
}

/// `run` killed with `kill -9` leaves its stages to themselves: each stops within a second, so that a rerun never
/// meets a trainer of the dead run still writing; and a stage whose run was gone before it looked stops as well.
#[test]
fn the_stages_of_a_killed_run_stop_by_themselves() {
    let (_scratch, run) = run_with_config("orphans");
    let r = run.root().to_str().unwrap();
    let mut first = start(&["run", "--run", r, "--threads", "1", "--minutes", "5"]);
    let mut stages = Vec::new();
    for role in ["trainer", "selfplay-0"] {
        assert!(poll_until(Duration::from_secs(60), || holder_pid(&run, role).is_some()), "no {role}");
        stages.push(holder_pid(&run, role).unwrap());
    }
    assert!(stages.iter().all(|&pid| running(pid) && pid != first.id()));
    first.kill().unwrap();
    first.wait().unwrap();
    let gone = poll_until(Duration::from_secs(5), || !stages.iter().any(|&pid| running(pid)));
    if !gone {
        // Not left running after the test: they would hold a core for good.
        for pid in &stages {
            let _ = std::process::Command::new("kill").args(["-9", &pid.to_string()]).status();
        }
    }
    assert!(gone, "stages {stages:?} outlived their run");

    let mut finished = std::process::Command::new("true").spawn().unwrap();
    finished.wait().unwrap();
    let mut late = bin()
        .args(["selfplay", "--run", r, "--games", "0", "--worker", "0"])
        .env("OTHELLO_ZERO_STAGE_OF_RUN", finished.id().to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stopped = poll_until(Duration::from_secs(5), || late.try_wait().unwrap().is_some());
    if !stopped {
        late.kill().unwrap();
    }
    let out = late.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(stopped && err.contains("the run that started this stage is gone"), "{err}");
}
