//! Helpers shared by the end-to-end tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

pub fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_othello-zero"))
}

pub fn temp_run(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("oz-e2e-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

pub fn shared(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("shared").join(rel)
}

/// The repository installs what its tests need: Python packages from PyPI, when python3 lacks them.
pub fn ensure_python(modules: &[(&str, &str)]) {
    for (module, package) in modules {
        let has = Command::new("python3").args(["-c", &format!("import {module}")]).status();
        if !has.is_ok_and(|s| s.success()) {
            let pip = Command::new("python3").args(["-m", "pip", "install", "--quiet", package]).status();
            assert!(pip.is_ok_and(|s| s.success()), "installing {package} with pip failed");
        }
    }
}
