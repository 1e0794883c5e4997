//! The JavaScript frontend in `web/`: `node --test` runs its tests (the rules against this binary and published
//! perft counts, the encoder and ONNX Runtime against the shipped exports' examples, the search against the solver,
//! the page in headless Chromium). What they need comes from the package registries when it is missing: Node.js
//! and npm and Chromium from Debian's, the pinned npm packages by `npm ci` into `web/node_modules`.

use std::path::Path;
use std::process::Command;

mod common;
use common::apt_install;

/// A program on the PATH, or else installed from its Debian package.
fn program(name: &str, package: &str) {
    let found = || Command::new(name).arg("--version").output().is_ok_and(|o| o.status.success());
    assert!(found() || (apt_install(package) && found()), "{name} is missing and apt-get could not install {package}");
}

/// `npm ci` when web/node_modules was not installed from the current package-lock.json.
fn npm_packages(web: &Path) {
    let lock = std::fs::read(web.join("package-lock.json")).unwrap();
    let stamp = web.join("node_modules").join(".installed-from-lock.json");
    if std::fs::read(&stamp).is_ok_and(|installed| installed == lock) {
        return;
    }
    // onnxruntime-node carries its CPU library; its install script would only fetch CUDA's from outside the registry.
    let status = Command::new("npm")
        .args(["ci", "--no-audit", "--no-fund"])
        .current_dir(web)
        .env("ONNXRUNTIME_NODE_INSTALL", "skip")
        .status()
        .unwrap();
    assert!(status.success(), "npm ci in {} failed", web.display());
    std::fs::write(&stamp, lock).unwrap();
}

#[test]
fn the_web_frontend_passes_its_tests() {
    let web = Path::new(env!("CARGO_MANIFEST_DIR")).join("web");
    program("node", "nodejs");
    program("npm", "npm");
    let chromium = Path::new("/usr/bin/chromium");
    assert!(chromium.exists() || apt_install("chromium"), "Chromium is missing and apt-get could not install it");
    npm_packages(&web);
    // The test files by name: how `node --test` reads a directory differs between Node.js versions.
    let mut files: Vec<String> = std::fs::read_dir(web.join("test"))
        .unwrap()
        .map(|e| format!("test/{}", e.unwrap().file_name().to_string_lossy()))
        .filter(|name| name.ends_with(".test.js"))
        .collect();
    files.sort();
    let out = Command::new("node")
        .args(["--test", "--test-reporter=spec"])
        .args(&files)
        .current_dir(&web)
        .env("OTHELLO_ZERO_BIN", env!("CARGO_BIN_EXE_othello-zero"))
        .env("CHROMIUM", chromium)
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{report}\n{}", String::from_utf8_lossy(&out.stderr));
    // Every test file ran: rules, network and search, the browser.
    for name in ["perft", "random games", "onnxruntime", "exact result", "whole game as black"] {
        assert!(report.contains(name), "no test named '{name}' ran:\n{report}");
    }
}

/// Every npm package in the lock file runs on Debian bookworm's Node.js (18.20.4), the one the tests install where
/// Node.js is missing, as package.json's `engines` promises (playwright-core needs Node.js 20 from 1.62 on).
#[test]
fn every_npm_package_runs_on_debians_nodejs() {
    let lock = Path::new(env!("CARGO_MANIFEST_DIR")).join("web/package-lock.json");
    let lock: serde_json::Value = serde_json::from_slice(&std::fs::read(lock).unwrap()).unwrap();
    let debian = semver::Version::new(18, 20, 4);
    let mut ranges = 0;
    for (name, package) in lock["packages"].as_object().unwrap() {
        if let Some(range) = package["engines"]["node"].as_str() {
            let required =
                semver::VersionReq::parse(range).unwrap_or_else(|e| panic!("{name}: engines.node {range:?}: {e}"));
            assert!(required.matches(&debian), "{name:?} needs Node.js {range}; Debian's is {debian}");
            ranges += 1;
        }
    }
    assert!(ranges > 1, "{ranges} Node.js ranges in the lock file");
}
