//! Helpers shared by the end-to-end tests.
#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

pub fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_othello-zero"))
}

/// Looks at `done` every 20 ms until it holds or `limit` has passed; whether it held.
pub fn poll_until(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let started = Instant::now();
    loop {
        if done() {
            return true;
        }
        if started.elapsed() >= limit {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A scratch directory named after its test, removed when dropped (also when the test fails).
pub fn temp_run(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new().prefix(&format!("oz-e2e-{name}-")).tempdir().unwrap()
}

/// A file of the repository's test data (`data/`: the perft table, the FFO suite, the WTHOR database).
pub fn data(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data").join(rel)
}

/// The Python the tests run scripts with: a virtual environment under the build directory (`target/tmp`), made
/// on first use and holding exactly the PyPI packages `python/requirements.txt` pins (installed again when that file
/// changes), so that the user's own Python is left as it was.
pub fn python_env() -> PathBuf {
    venv("python-venv", "requirements.txt")
}

/// The Python of a virtual environment `target/tmp/NAME` holding exactly what `python/REQUIREMENTS` pins.
pub fn venv(name: &str, requirements: &str) -> PathBuf {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one_at_a_time = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let venv = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let python = venv.join("bin").join("python3");
    if !venv.join("bin").join("pip").exists() {
        // Debian's python3 makes a whole environment only with its python3-venv package (ensurepip); without it,
        // `venv` fails and leaves one with no pip behind, which --clear makes again.
        let make =
            || Command::new("python3").args(["-m", "venv", "--clear"]).arg(&venv).status().is_ok_and(|s| s.success());
        let made = make() || (apt_install("python3-venv") && make());
        assert!(made, "python3 -m venv {} failed, and apt-get could not install python3-venv", venv.display());
    }
    let wanted = Path::new(env!("CARGO_MANIFEST_DIR")).join("python").join(requirements);
    let installed = venv.join("requirements.txt");
    let requirements = std::fs::read(&wanted).unwrap();
    if std::fs::read(&installed).ok().as_ref() != Some(&requirements) {
        let pip = Command::new(&python).args(["-m", "pip", "install", "--quiet", "-r"]).arg(&wanted).status();
        assert!(pip.is_ok_and(|s| s.success()), "installing {} into {} failed", wanted.display(), venv.display());
        std::fs::write(&installed, &requirements).unwrap();
    }
    python
}

/// The rows of a CSV text after its header, as fields (quoted fields may hold commas).
pub fn csv_records(text: &str) -> Vec<Vec<String>> {
    let mut reader = csv::ReaderBuilder::new().flexible(true).from_reader(text.as_bytes());
    reader.records().map(|record| record.unwrap().iter().map(str::to_string).collect()).collect()
}

/// The command's output with `input` (bytes, not necessarily UTF-8) on its standard input.
pub fn run_with(args: &[&str], input: &[u8]) -> Output {
    let mut child = bin()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    // Written from a thread of its own: a long input must not block on a full output pipe.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

/// Installs a Debian package: as root with apt-get, else through `sudo -n`; reads the package lists first when a
/// fresh machine has none. Whether it worked.
pub fn apt_install(package: &str) -> bool {
    let root = Command::new("id").arg("-u").output().is_ok_and(|o| o.stdout.starts_with(b"0\n"));
    let apt = |args: &[&str]| {
        let mut command = if root { Command::new("apt-get") } else { Command::new("sudo") };
        if !root {
            command.args(["-n", "apt-get"]);
        }
        command.args(args).env("DEBIAN_FRONTEND", "noninteractive").stdout(Stdio::null());
        command.status().is_ok_and(|s| s.success())
    };
    let install = ["install", "-y", "-q", "--no-install-recommends", package];
    apt(&install) || (apt(&["update", "-q"]) && apt(&install))
}

/// GRhino's `gtp-rhino`, a real Othello engine, installed from Debian's packages (`grhino`) when it is missing;
/// `None`, with the check `test` recorded as skipped, where it cannot be.
pub fn grhino(test: &str) -> Option<PathBuf> {
    static INSTALLED: std::sync::OnceLock<Result<PathBuf, String>> = std::sync::OnceLock::new();
    let found = INSTALLED.get_or_init(|| {
        if let Some(found) = othello_players::engine::grhino::find() {
            return Ok(found);
        }
        if !apt_install("grhino") {
            return Err("GRhino (Debian's grhino) is not installed and apt-get could not install it".into());
        }
        othello_players::engine::grhino::find().ok_or_else(|| "grhino installed, but gtp-rhino is not found".into())
    });
    found.as_ref().map_err(|why| skip(test, why)).ok().cloned()
}

/// Records that the check `test` could not be made on this machine, and why: on the terminal past the test
/// harness's capture, so that a plain `cargo test` shows it, and in `target/tmp/skipped-checks.txt`, which
/// `.ci/run` prints at its end (and where CI's machine, which lacks nothing, lists a skip, fails on).
pub fn skip(test: &str, reason: &str) {
    let line = format!("skipped: {test}: {reason}\n");
    // Not eprintln!: the harness captures that and shows it only for a failing test.
    let _ = std::io::stderr().write_all(line.as_bytes());
    let list = Path::new(env!("CARGO_TARGET_TMPDIR")).join("skipped-checks.txt");
    let appended = std::fs::OpenOptions::new().create(true).append(true).open(&list);
    appended.and_then(|mut file| file.write_all(line.as_bytes())).expect("the list of skipped checks is writable");
}

/// A shell script made executable, as a stand-in engine.
pub fn script(dir: &Path, name: &str, body: &str) -> String {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path.to_str().unwrap().to_string()
}
