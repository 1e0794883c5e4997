//! The deployment files (`deploy/`) and the docs: every command they run or show is a real subcommand with real
//! flags, and the Kubernetes manifests parse and fit together.

use std::collections::HashMap;
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

/// The help texts of the subcommands asked about (`bench` with its own subcommand), each asked once.
#[derive(Default)]
struct Helps(HashMap<Vec<String>, Option<String>>);

impl Helps {
    /// `subcommand --flag ...` must be accepted: the subcommand exists and lists each flag in its help.
    fn check(&mut self, origin: &str, words: &[String]) {
        let nested = words[0] == "bench" && words.get(1).is_some_and(|w| !w.starts_with('-'));
        let sub = words[..if nested { 2 } else { 1 }].to_vec();
        let text = self.0.entry(sub.clone()).or_insert_with(|| {
            let help = bin().args(&sub).arg("--help").output().unwrap();
            help.status.success().then(|| String::from_utf8_lossy(&help.stdout).into_owned())
        });
        let sub = sub.join(" ");
        let text = text.as_deref().unwrap_or_else(|| panic!("{origin}: '{sub}' is not a subcommand"));
        for word in words.iter().filter(|w| w.starts_with("--")) {
            let flag = word.split(['=', ',', ';', ')']).next().unwrap_or(word);
            assert!(
                text.contains(&format!("{flag} ")) || text.contains(&format!("{flag}\n")),
                "{origin}: {sub} has no {flag}"
            );
        }
    }
}

#[test]
fn slurm_scripts_run_real_commands() {
    let mut helps = Helps::default();
    let mut checked = 0;
    for entry in std::fs::read_dir(deploy().join("slurm")).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        for words in commands_in(&text) {
            helps.check(&path.display().to_string(), &words);
            checked += 1;
        }
    }
    assert_eq!(checked, 3, "self-play, the trainer, the evaluation");
}

#[test]
fn kubernetes_manifests_parse_share_one_volume_and_run_real_commands() {
    let mut helps = Helps::default();
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
            Some(kind @ ("Deployment" | "StatefulSet")) => {
                deployments += 1;
                // Self-play worker ids come from the scheduler's own index, which no two pods share.
                let text = std::fs::read_to_string(&path).unwrap();
                if text.contains("othello-zero selfplay") {
                    assert_eq!(kind, "StatefulSet", "{origin}: a worker id from a pod's ordinal");
                    assert!(text.contains("--worker \"$${HOSTNAME##*-}\"") && !text.contains("cksum"), "{origin}");
                }
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
                    helps.check(&origin, &words);
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
/// newest `rust-version` of any locked dependency: cargo refuses to build with an older toolchain. The
/// dependencies read are those whose sources a build unpacked (this platform's, the image's); reading the lock
/// file and their manifests directly keeps cargo and rustc out of the test.
#[test]
fn the_image_and_the_workspace_name_a_toolchain_every_dependency_accepts() {
    let version = |text: &str| -> (u32, u32) {
        let mut parts = text.split('.').map(|p| p.parse::<u32>().unwrap());
        (parts.next().unwrap(), parts.next().unwrap())
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dockerfile = std::fs::read_to_string(deploy().join("Dockerfile")).unwrap();
    let image = dockerfile
        .lines()
        .find_map(|l| l.strip_prefix("FROM rust:"))
        .and_then(|rest| rest.split('-').next())
        .expect("the Dockerfile builds FROM rust:X.Y-...");
    let manifest: toml::Table = std::fs::read_to_string(root.join("Cargo.toml")).unwrap().parse().unwrap();
    let ours = manifest["workspace"]["package"]["rust-version"].as_str().unwrap();
    let lock: toml::Table = std::fs::read_to_string(root.join("Cargo.lock")).unwrap().parse().unwrap();
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").unwrap()).join(".cargo"));
    let registries: Vec<PathBuf> =
        std::fs::read_dir(cargo_home.join("registry/src")).unwrap().map(|e| e.unwrap().path()).collect();
    let mut read = Vec::new();
    for package in lock["package"].as_array().unwrap() {
        if !package.get("source").and_then(|s| s.as_str()).is_some_and(|s| s.starts_with("registry+")) {
            continue;
        }
        let name = package["name"].as_str().unwrap();
        let unpacked = format!("{name}-{}", package["version"].as_str().unwrap());
        let Some(text) =
            registries.iter().find_map(|r| std::fs::read_to_string(r.join(&unpacked).join("Cargo.toml")).ok())
        else {
            continue; // another platform's dependency, never unpacked here
        };
        let manifest: toml::Table = text.parse().unwrap_or_else(|e| panic!("{unpacked}: {e}"));
        let rust_version = manifest["package"].get("rust-version").and_then(|v| v.as_str());
        read.push((rust_version.map(version), name.to_string()));
    }
    assert!(read.iter().any(|(_, name)| name == "burn"), "burn's sources are unpacked after a build");
    let (needed, by) = read.iter().filter_map(|(v, name)| Some(((*v)?, name))).max().unwrap();
    let needed_text = format!("{}.{} ({by})", needed.0, needed.1);
    assert!(version(image) >= needed, "the Dockerfile's rust:{image} is older than {needed_text}");
    assert!(version(ours) >= needed, "the workspace's rust-version {ours} is older than {needed_text}");
}

/// The commands the README and the docs show (in code spans and code blocks) are real subcommands with real flags.
#[test]
fn the_docs_show_real_commands() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut helps = Helps::default();
    let mut checked = 0;
    let mut docs: Vec<PathBuf> =
        ["README.md", "docs/ARCHITECTURE.md", "docs/BENCHMARKS.md"].map(PathBuf::from).to_vec();
    let experiments = std::fs::read_dir(root.join("docs/experiments")).unwrap();
    docs.extend(experiments.map(|e| e.unwrap().path().strip_prefix(root).unwrap().to_path_buf()));
    for doc in &docs {
        let text = std::fs::read_to_string(root.join(doc)).unwrap();
        let doc = &doc.display().to_string();
        // Every other piece between backticks is code (a fence's three backticks split alike).
        for code in text.split('`').skip(1).step_by(2) {
            for line in code.lines() {
                for command in line.split("othello-zero ").skip(1) {
                    let words: Vec<String> = command.split_whitespace().map(str::to_string).collect();
                    if words.first().is_some_and(|w| w.chars().all(|c| c.is_ascii_lowercase() || c == '-')) {
                        helps.check(doc, &words);
                        checked += 1;
                    }
                }
            }
        }
    }
    assert!(checked > 100, "{checked} commands found in the docs");
}

/// The front door stays short and the benchmark table stays a table: README.md under 200 lines, no row of
/// docs/BENCHMARKS.md a paragraph (the stories go to docs/experiments/).
#[test]
fn the_readme_and_the_benchmarks_stay_short() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    assert!(readme.lines().count() < 200, "README.md has {} lines", readme.lines().count());
    let benchmarks = std::fs::read_to_string(root.join("docs/BENCHMARKS.md")).unwrap();
    for (i, line) in benchmarks.lines().enumerate() {
        assert!(line.chars().count() <= 400, "docs/BENCHMARKS.md line {}: {} characters", i + 1, line.chars().count());
    }
}
