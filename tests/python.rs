//! The Python package (`python/`), installed as a user installs it, `pip install ./python` (maturin builds the
//! extension module from the workspace), into a virtual environment of its own under `target/tmp`, then its pytest
//! suite: the environment against this binary's replay, perft against the published counts, the solver against
//! the FFO suite, and every bad input.

use std::path::Path;
use std::process::Command;

mod common;
use common::venv;

#[test]
fn the_python_package_passes_its_tests() {
    let python = venv("python-package-venv", "requirements-package.txt");
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    // A build directory of its own: the one `cargo test` holds is locked while the tests run.
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("python-package-build");
    // The build backend calls maturin's program, which the environment's bin holds.
    let bin = python.parent().unwrap();
    let path = std::env::join_paths(
        std::iter::once(bin.to_path_buf()).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
    )
    .unwrap();
    let install = Command::new(&python)
        .args(["-m", "pip", "install", "--quiet", "--no-build-isolation", "--no-deps", "--force-reinstall"])
        .arg(repo.join("python"))
        .env("CARGO_TARGET_DIR", &target)
        .env("PATH", path)
        .status()
        .unwrap();
    assert!(install.success(), "pip install ./python failed");
    let out = Command::new(&python)
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
