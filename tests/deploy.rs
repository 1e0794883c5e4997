//! The deployment files (`deploy/`): every command they run is a real subcommand with real flags, and the
//! Kubernetes manifests parse and fit together.

use std::path::{Path, PathBuf};

mod common;
use common::bin;

fn deploy() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy")
}

/// The words of each `othello-zero ...` command in `text` (from `othello-zero` to the end of its line).
fn commands_in(text: &str) -> Vec<Vec<String>> {
    text.lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .filter_map(|l| l.split_once("othello-zero ").map(|(_, rest)| rest))
        .map(|rest| rest.split_whitespace().map(str::to_string).collect())
        .collect()
}

/// `subcommand --flag ...` must be accepted: the subcommand exists and lists each flag in its help.
fn check(origin: &str, words: &[String]) {
    let sub = &words[0];
    let help = bin().args([sub.as_str(), "--help"]).output().unwrap();
    assert!(help.status.success(), "{origin}: '{sub}' is not a subcommand");
    let text = String::from_utf8_lossy(&help.stdout);
    for flag in words.iter().filter(|w| w.starts_with("--")) {
        assert!(
            text.contains(&format!("{flag} ")) || text.contains(&format!("{flag}\n")),
            "{origin}: {sub} has no {flag}"
        );
    }
}

#[test]
fn slurm_scripts_run_real_commands() {
    let mut checked = 0;
    for entry in std::fs::read_dir(deploy().join("slurm")).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        for words in commands_in(&text) {
            check(&path.display().to_string(), &words);
            checked += 1;
        }
    }
    assert_eq!(checked, 3, "self-play, the trainer, the evaluation");
}

#[test]
fn kubernetes_manifests_parse_share_one_volume_and_run_real_commands() {
    let mut deployments = 0;
    let mut claims = vec![];
    let mut mounted = vec![];
    for entry in std::fs::read_dir(deploy().join("kubernetes")).unwrap() {
        let path = entry.unwrap().path();
        let origin = path.display().to_string();
        let doc: serde_yaml::Value =
            serde_yaml::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap_or_else(|e| panic!("{origin}: {e}"));
        assert!(doc["apiVersion"].is_string(), "{origin}: no apiVersion");
        match doc["kind"].as_str() {
            Some("PersistentVolumeClaim") => {
                assert_eq!(doc["spec"]["accessModes"][0], "ReadWriteMany", "{origin}");
                claims.push(doc["metadata"]["name"].as_str().unwrap().to_string());
            }
            Some("Deployment") => {
                deployments += 1;
                let pod = &doc["spec"]["template"]["spec"];
                for volume in pod["volumes"].as_sequence().unwrap() {
                    mounted.push(volume["persistentVolumeClaim"]["claimName"].as_str().unwrap().to_string());
                }
                for container in pod["containers"].as_sequence().unwrap() {
                    let command: Vec<&str> =
                        container["command"].as_sequence().unwrap().iter().filter_map(|c| c.as_str()).collect();
                    let args: Vec<String> = container["args"]
                        .as_sequence()
                        .unwrap()
                        .iter()
                        .filter_map(|a| a.as_str().map(str::to_string))
                        .collect();
                    let words = if command == ["othello-zero"] {
                        args
                    } else {
                        // A shell line: the othello-zero command in it.
                        commands_in(&args.join("\n")).pop().unwrap_or_else(|| panic!("{origin}: no command"))
                    };
                    check(&origin, &words);
                }
            }
            other => panic!("{origin}: unexpected kind {other:?}"),
        }
    }
    assert_eq!(deployments, 3, "self-play, the trainer, the evaluation");
    assert_eq!(claims.len(), 1);
    assert!(mounted.iter().all(|m| *m == claims[0]), "{mounted:?} against {claims:?}");
}

/// The image's Rust (`FROM rust:X.Y` in the Dockerfile) and the workspace's `rust-version` are at least the
/// newest `rust-version` of any locked dependency: cargo refuses to build with an older toolchain.
#[test]
fn the_image_and_the_workspace_name_a_toolchain_every_dependency_accepts() {
    let version = |text: &str| -> (u32, u32) {
        let mut parts = text.split('.').map(|p| p.parse::<u32>().unwrap());
        (parts.next().unwrap(), parts.next().unwrap())
    };
    let dockerfile = std::fs::read_to_string(deploy().join("Dockerfile")).unwrap();
    let image = dockerfile
        .lines()
        .find_map(|l| l.strip_prefix("FROM rust:"))
        .and_then(|rest| rest.split('-').next())
        .expect("the Dockerfile builds FROM rust:X.Y-...");
    let metadata = std::process::Command::new(env!("CARGO"))
        .args(["metadata", "--format-version", "1", "--offline", "--locked"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(metadata.status.success(), "{}", String::from_utf8_lossy(&metadata.stderr));
    let metadata: serde_json::Value = serde_json::from_slice(&metadata.stdout).unwrap();
    let packages = metadata["packages"].as_array().unwrap();
    let (needed, by) = packages
        .iter()
        .filter(|p| p["source"].is_string())
        .filter_map(|p| Some((version(p["rust_version"].as_str()?), p["name"].as_str()?)))
        .max()
        .unwrap();
    let ours = packages.iter().find(|p| p["name"] == "othello-zero").unwrap()["rust_version"].as_str().unwrap();
    let needed_text = format!("{}.{} ({by})", needed.0, needed.1);
    assert!(version(image) >= needed, "the Dockerfile's rust:{image} is older than {needed_text}");
    assert!(version(ours) >= needed, "the workspace's rust-version {ours} is older than {needed_text}");
}
