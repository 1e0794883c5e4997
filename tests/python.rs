//! The Python package (`python/`), installed as a user installs it, `pip install ./python` (maturin builds the
//! extension module from the workspace), into a virtual environment of its own under `target/tmp`, then its pytest
//! suite: the environment against this binary's replay, perft against the published counts, the solver against
//! the FFO suite, every kind of player (GRhino installed from Debian for its own), the arena against this binary's
//! `ratings`, and every bad input.

use std::path::Path;
use std::process::Command;

mod common;
use common::{grhino, venv};

const TEST: &str = "the_python_package_passes_its_tests";

#[test]
fn the_python_package_passes_its_tests() {
    // Every player kind is played, GRhino's where it can be installed (else that check is recorded as skipped).
    let grhino = grhino(TEST);
    let python = venv("python-package-venv", "requirements-package.txt");
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    // The workspace's own build directory and the dev profile (the test profile's settings): cargo holds the
    // directory's lock only while it compiles, and the extension module reuses every library `cargo test` built
    // (python/Cargo.toml turns on the features the other members do): it builds only pyo3 and itself, where a
    // build of the network stack of its own takes eight minutes on two cores.
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).parent().unwrap();
    // The build backend calls maturin's program, which the environment's bin holds.
    let bin = python.parent().unwrap();
    let path = std::env::join_paths(
        std::iter::once(bin.to_path_buf()).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
    )
    .unwrap();
    let install = Command::new(&python)
        .args(["-m", "pip", "install", "--quiet", "--no-build-isolation", "--no-deps", "--force-reinstall"])
        .arg(repo.join("python"))
        .env("CARGO_TARGET_DIR", target)
        .env("MATURIN_PEP517_ARGS", "--profile dev")
        .env("PATH", path)
        .status()
        .unwrap();
    assert!(install.success(), "pip install ./python failed");
    let mut pytest = Command::new(&python);
    if let Some(program) = &grhino {
        pytest.env("GRHINO", program);
    }
    let out = pytest
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
        .arg(repo.join("python").join("tests"))
        .env("OTHELLO_ZERO_BIN", env!("CARGO_BIN_EXE_othello-zero"))
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{report}\n{}", String::from_utf8_lossy(&out.stderr));
    let summary = report.lines().last().unwrap_or_default();
    assert!(summary.contains(" passed") && !summary.contains("skipped"), "{summary}");
}
