//! The JavaScript frontend in `web/`, tested as any npm package is: `npm ci && npm test` in `web/`, as a user runs it
//! after `cargo build --release` (the rules against this binary and published perft counts, the encoder and ONNX
//! Runtime against the shipped exports' examples, the search against the solver, the page in headless Chromium).
//! What the tests need comes from the package registries when it is missing: Node.js, npm and Chromium from
//! Debian's, the pinned npm packages by `npm ci` (which `web/.npmrc` keeps inside the npm registry).

use std::path::Path;
use std::process::Command;

mod common;
use common::{apt_install, skip};

const TEST: &str = "the_web_frontend_passes_its_tests";

/// A program on the PATH, or else installed from its Debian package; whether it is there.
fn program(name: &str, package: &str) -> bool {
    let found = || Command::new(name).arg("--version").output().is_ok_and(|o| o.status.success());
    found() || (apt_install(package) && found())
}

/// `npm ci` when web/node_modules was not installed from the current package-lock.json.
fn npm_packages(web: &Path) {
    let lock = std::fs::read(web.join("package-lock.json")).unwrap();
    let stamp = web.join("node_modules").join(".installed-from-lock.json");
    if std::fs::read(&stamp).is_ok_and(|installed| installed == lock) {
        return;
    }
    let status = Command::new("npm").args(["ci", "--no-audit", "--no-fund"]).current_dir(web).status().unwrap();
    assert!(status.success(), "npm ci in {} failed", web.display());
    std::fs::write(&stamp, lock).unwrap();
}

#[test]
fn the_web_frontend_passes_its_tests() {
    let web = Path::new(env!("CARGO_MANIFEST_DIR")).join("web");
    for (name, package) in [("node", "nodejs"), ("npm", "npm")] {
        if !program(name, package) {
            return skip(TEST, &format!("{name} is missing and apt-get could not install Debian's {package}"));
        }
    }
    let chromium = Path::new("/usr/bin/chromium").exists() || apt_install("chromium");
    npm_packages(&web);
    // `npm test` finds the newest othello-zero build itself: the one this test run has just made.
    let out = Command::new("npm").arg("test").current_dir(&web).output().unwrap();
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{report}\n{}", String::from_utf8_lossy(&out.stderr));
    // Every test file ran: rules, network and search, the browser.
    let mut expected = vec!["perft", "random games", "onnxruntime", "exact result"];
    if chromium {
        expected.push("whole game as black");
    } else {
        skip(TEST, "the page in a browser: Chromium is missing and apt-get could not install Debian's chromium");
    }
    for name in expected {
        assert!(report.contains(name), "no test named '{name}' ran:\n{report}");
    }
    // Where Chromium is there, no JavaScript test skipped itself.
    assert!(!chromium || report.contains("skipped 0"), "{report}");
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
