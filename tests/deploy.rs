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
