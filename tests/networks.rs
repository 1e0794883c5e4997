//! The networks that ship in `networks/`: each loads, exports to exactly the files it ships with, and plays legal
//! games; `gtp` with no agent plays the 8x8 one.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::Stdio;

use othello_core::{Game, Move, Rules, Status};

mod common;
use common::{bin, csv_records, temp_run};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Each shipped network's directory, relative to the repository.
fn shipped() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root().join("networks"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .map(|p| p.strip_prefix(root()).unwrap().to_path_buf())
        .collect();
    dirs.sort();
    assert!(dirs.len() >= 2, "{dirs:?}");
    dirs
}

/// The rules a checkpoint was trained under, from its sidecar.
fn rules_of(model: &Path) -> String {
    let sidecar: serde_json::Value = serde_json::from_slice(&std::fs::read(root().join(model)).unwrap()).unwrap();
    sidecar["training"]["rules"].as_str().unwrap().to_string()
}

/// The examples' inputs are the same and the network's outputs agree within float rounding (another CPU's matrix
/// kernels may round differently).
fn same_examples(shipped: &Path, made: &Path) {
    use ndarray::ArrayD;
    use ndarray_npy::NpzReader;
    let mut shipped = NpzReader::new(std::fs::File::open(shipped).unwrap()).unwrap();
    let mut made = NpzReader::new(std::fs::File::open(made).unwrap()).unwrap();
    for name in ["planes", "policy", "value", "margin", "ownership"] {
        let a: ArrayD<f32> = shipped.by_name(name).unwrap();
        let b: ArrayD<f32> = made.by_name(name).unwrap();
        assert_eq!(a.shape(), b.shape(), "{name}");
        let worst = a.iter().zip(&b).map(|(x, y)| (x - y).abs()).fold(0.0f32, f32::max);
        assert!(worst < 1e-3, "{name}: outputs differ by {worst}");
    }
}

/// `examples.json` likewise: the same positions, moves and planes, the outputs within float rounding.
fn same_json_examples(shipped: &Path, made: &Path) {
    let read = |p: &Path| -> serde_json::Value { serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap() };
    let (shipped, made) = (read(shipped), read(made));
    let (a, b) = (shipped["examples"].as_array().unwrap(), made["examples"].as_array().unwrap());
    assert_eq!((shipped["rules"].clone(), a.len()), (made["rules"].clone(), b.len()));
    let numbers = |v: &serde_json::Value| -> Vec<f64> {
        match v.as_array() {
            Some(items) => items.iter().map(|x| x.as_f64().unwrap()).collect(),
            None => vec![v.as_f64().unwrap()],
        }
    };
    for (x, y) in a.iter().zip(b) {
        for key in ["moves", "board", "planes"] {
            assert_eq!(x[key], y[key], "{key}");
        }
        for key in ["policy", "value", "margin", "ownership"] {
            let worst = numbers(&x[key]).iter().zip(numbers(&y[key])).map(|(p, q)| (p - q).abs()).fold(0.0, f64::max);
            assert!(worst < 1e-3, "{key}: outputs differ by {worst}");
        }
    }
}

#[test]
fn each_shipped_network_exports_to_its_files_and_plays_legal_games() {
    let scratch = temp_run("networks");
    for dir in shipped() {
        let model = dir.join("model.json");
        let out = scratch.path().join(dir.file_name().unwrap());
        let o = bin().current_dir(root()).args(["export", "--model"]).arg(&model).arg("--out").arg(&out).output();
        let o = o.unwrap();
        assert!(o.status.success(), "{}: {}", dir.display(), String::from_utf8_lossy(&o.stderr));
        let shipped = root().join(&dir).join("export");
        for file in ["model.safetensors", "model.onnx", "model-card.json"] {
            let bytes = std::fs::read(shipped.join(file)).unwrap();
            assert!(std::fs::read(out.join(file)).unwrap() == bytes, "{}: {file} differs", dir.display());
        }
        same_examples(&shipped.join("examples.npz"), &out.join("examples.npz"));
        same_json_examples(&shipped.join("examples.json"), &out.join("examples.json"));
        assert!(root().join(&dir).join("README.md").exists(), "{}: no model card", dir.display());
        let arena = scratch.path().join(format!("{}-arena", dir.file_name().unwrap().to_str().unwrap()));
        let player = format!("net:model=\"{}\",sims=16", root().join(&model).display());
        let o = bin()
            .args(["arena", "--out", arena.to_str().unwrap(), "--games", "2", "--rules", &rules_of(&model)])
            .args(["--agents", &player, "random"])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}: {}", dir.display(), String::from_utf8_lossy(&o.stderr));
        let rows = csv_records(&std::fs::read_to_string(arena.join("results.csv")).unwrap());
        assert!(rows.len() == 2 && rows.iter().all(|r| r[8] == "normal"), "{rows:?}");
    }
}

/// `gtp` with no `--agent` plays the shipped 8x8 network, on the front end's clock (8 s a game for each colour: the
/// shipped search cut to the time): asked for both colours' moves until the game ends, each reply is a legal move
/// (or the forced pass) under the rules' own move generator.
#[test]
fn gtp_with_no_agent_plays_a_whole_legal_game() {
    let mut child = bin().arg("gtp").stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
    let mut input = child.stdin.take().unwrap();
    let mut output = BufReader::new(child.stdout.take().unwrap());
    let mut ask = |command: &str| {
        writeln!(input, "{command}").unwrap();
        let mut reply = String::new();
        output.read_line(&mut reply).unwrap();
        output.read_line(&mut String::new()).unwrap();
        reply.trim().strip_prefix('=').unwrap_or_else(|| panic!("{command}: {reply}")).trim().to_lowercase()
    };
    ask("boardsize 8");
    ask("clear_board");
    ask("time_settings 8 0 0");
    let mut game = Game::new(Rules::othello());
    while !game.is_over() {
        let colour = if game.position().side == othello_core::Color::Black { "b" } else { "w" };
        let reply = ask(&format!("genmove {colour}"));
        let mv = match game.status() {
            Status::MustPass => {
                assert_eq!(reply, "pass", "{:?}", game.moves());
                Move::Pass
            }
            _ => Move::Play(reply.parse().unwrap_or_else(|_| panic!("not a move: {reply}"))),
        };
        game.push(mv).unwrap_or_else(|e| panic!("{reply} after {:?}: {e}", game.moves()));
    }
    ask("quit");
    assert!(child.wait().unwrap().success());
}
