//! A run directory on a small filesystem that fills up, then turns read-only, then gets room again: each stage
//! stops with an error naming the path, no file is left damaged, and the run resumes once there is space.
//!
//! The small filesystem is a tmpfs mounted in a user and mount namespace of the test's own (`unshare -rm`), so the
//! test needs no privileges; where the system refuses such namespaces (some containers) it is recorded as skipped.

use std::path::Path;
use std::process::Command;

use othello_run::read_shards;

mod common;
use common::{skip, temp_run};

#[test]
fn a_full_then_read_only_disk_stops_the_stages_cleanly_and_the_run_resumes() {
    if !Command::new("unshare").args(["-rm", "true"]).status().is_ok_and(|s| s.success()) {
        let why = "this system refuses user namespaces (unshare -rm), so no private tmpfs can be mounted";
        skip("a_full_then_read_only_disk_stops_the_stages_cleanly_and_the_run_resumes", why);
        return;
    }
    let scratch = [temp_run("full-disk"), temp_run("full-disk-kept")];
    let [mount, kept] = scratch.each_ref().map(|d| d.path());
    let bin = env!("CARGO_BIN_EXE_othello-zero");
    let config = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/ci.toml");
    let run = mount.join("run");
    // Each step's output goes to a file of its own outside the small filesystem.
    let script = format!(
        r#"set -u
        mount -t tmpfs -o size=192k tmpfs {m}
        mkdir -p {r} && cp {config} {r}/config.toml
        {bin} selfplay --run {r} --games 100000 > /dev/null 2> {k}/selfplay-full.err; echo $? > {k}/selfplay-full.rc
        {bin} train --run {r} --steps 40 > /dev/null 2> {k}/train-full.err; echo $? > {k}/train-full.rc
        cp -r {r}/replay {k}/replay-full
        mount -o remount,size=64m {m}
        mount -o remount,ro {m}
        {bin} selfplay --run {r} --games 100000 > /dev/null 2> {k}/selfplay-ro.err; echo $? > {k}/selfplay-ro.rc
        mount -o remount,rw {m}
        timeout 15 {bin} selfplay --run {r} --games 100000 > /dev/null 2> {k}/selfplay-again.err; echo $? > {k}/selfplay-again.rc
        {bin} train --run {r} --steps 40 > /dev/null 2> {k}/train-again.err; echo $? > {k}/train-again.rc
        cp -r {r}/replay {k}/replay-after && cp -r {r}/models {k}/models-after"#,
        m = mount.display(),
        r = run.display(),
        k = kept.display(),
        config = config.display(),
    );
    let status = Command::new("unshare").args(["-rm", "sh", "-c", &script]).status().unwrap();
    assert!(status.success(), "the script itself failed");
    let read = |name: &str| std::fs::read_to_string(kept.join(name)).unwrap_or_default();

    // Full: self-play stops with an error that names the replay directory and says why; nothing panics, and no
    // library below it adds noise of its own.
    let err = read("selfplay-full.err");
    assert_ne!(read("selfplay-full.rc").trim(), "0", "{err}");
    assert!(err.contains("No space left") && err.contains("replay") && !err.contains("panicked"), "{err}");
    assert!(!err.contains("ZipWriter"), "{err}");
    // Every shard it left visible is whole.
    let (full, bad) = read_shards(&kept.join("replay-full"));
    assert!(bad.is_empty() && !full.is_empty(), "{bad:?}");
    // The trainer cannot write its log or checkpoint: an error naming the file, no panic.
    let err = read("train-full.err");
    assert_ne!(read("train-full.rc").trim(), "0", "{err}");
    assert!(err.contains("No space left") && err.contains(&run.display().to_string()) && !err.contains("panicked"));

    // Read-only: the same, with the file system's reason.
    let err = read("selfplay-ro.err");
    assert_ne!(read("selfplay-ro.rc").trim(), "0", "{err}");
    assert!(err.contains("Read-only file system") && !err.contains("panicked"), "{err}");

    // Room again: self-play goes on from what is there (no game twice; stopped by `timeout`, status 124), and
    // the trainer reaches its step.
    assert_eq!(read("selfplay-again.rc").trim(), "124", "{}", read("selfplay-again.err"));
    assert_eq!(read("train-again.rc").trim(), "0", "{}", read("train-again.err"));
    let (after, bad) = read_shards(&kept.join("replay-after"));
    assert!(bad.is_empty() && after.len() > full.len(), "{bad:?}");
    let mut games = std::collections::HashSet::new();
    for (_, shard) in &after {
        for g in shard.game.iter().copied().collect::<std::collections::HashSet<u64>>() {
            assert!(games.insert(g), "game {g} in two shards");
        }
    }
    assert!(kept.join("models-after").join("model-000000040.json").exists());
}
