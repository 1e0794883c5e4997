//! End-to-end tests of the training stage: a trainer killed with `kill -9` resumes exactly, bad inputs are named,
//! and an export agrees with the numpy reference and onnxruntime.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use burn::module::Module;
use burn::tensor::{Device, Tensor, TensorData};
use othello_net::{load_checkpoint, read_info};
use othello_run::RunDir;
use othello_train::log::read_scalars;

mod common;
use common::{bin, data, python_env, temp_run};

const CONFIG: &str = "seed = 5\n[network]\nblocks = 1\nfilters = 8\n[train]\nbatch_size = 32\nmin_positions = 1\n\
                      samples_per_position = 1000.0\ncheckpoint_every = 10\nlog_every = 5\nwarmup_steps = 5\n";

/// A run with WTHOR games imported and the small config.
fn imported_run(name: &str) -> tempfile::TempDir {
    let scratch = temp_run(name);
    let run = scratch.path();
    std::fs::write(RunDir::new(run).config(), CONFIG).unwrap();
    let out = bin()
        .args(["import-wthor", data("wthor/WTH_1985.wtb").to_str().unwrap(), "--run", run.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    scratch
}

fn train(run: &Path, steps: u64) -> Output {
    // One Burn thread: the same arithmetic in every process, so runs can be compared exactly.
    bin()
        .env("RAYON_NUM_THREADS", "1")
        .args(["train", "--run", run.to_str().unwrap(), "--steps", &steps.to_string()])
        .output()
        .unwrap()
}

/// The scalar points of TensorBoard event files (TFRecord framing around `Event` protobufs), decoded with the
/// few fields of tensorflow/core/util/event.proto and summary.proto they use.
mod tensorboard {
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Event {
        #[prost(double, tag = "1")]
        pub wall_time: f64,
        #[prost(int64, tag = "2")]
        pub step: i64,
        #[prost(message, optional, tag = "5")]
        pub summary: Option<Summary>,
    }
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Summary {
        #[prost(message, repeated, tag = "1")]
        pub value: Vec<Value>,
    }
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Value {
        #[prost(string, tag = "1")]
        pub tag: String,
        #[prost(float, tag = "2")]
        pub simple_value: f32,
    }

    /// (step, value) of `tag` in one event file, in file order.
    pub fn points(path: &std::path::Path, tag: &str) -> Vec<(i64, f32)> {
        use prost::Message;
        let bytes = std::fs::read(path).unwrap();
        let mut at = 0;
        let mut out = vec![];
        while at < bytes.len() {
            let len = u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap()) as usize;
            let event = Event::decode(&bytes[at + 12..at + 12 + len]).unwrap();
            at += 12 + len + 4;
            for v in event.summary.iter().flat_map(|s| &s.value) {
                if v.tag == tag {
                    out.push((event.step, v.simple_value));
                }
            }
        }
        out
    }
}

fn policy_outputs(model: &Path) -> Vec<f32> {
    let device = Device::flex();
    let (net, _) = load_checkpoint(model, None, &device).unwrap();
    let planes: Vec<f32> = (0..4 * 6 * 64).map(|i| ((i * 7) % 5 == 0) as u8 as f32).collect();
    let input = Tensor::<4>::from_data(TensorData::new(planes, [4, 6, 8, 8]), &device);
    net.valid().forward(input).policy.into_data().try_into_vec::<f32>().unwrap()
}

#[test]
fn a_trainer_killed_with_sigkill_resumes_where_it_stopped() {
    let scratch = imported_run("train-kill");
    let run = scratch.path();
    let mut child = bin()
        .env("RAYON_NUM_THREADS", "1")
        .args(["train", "--run", run.to_str().unwrap(), "--steps", "100000"])
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while !RunDir::new(run).models().join("model-000000030.json").exists()
        && started.elapsed() < Duration::from_secs(120)
    {
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let newest = othello_net::newest_checkpoint(&RunDir::new(run).models()).unwrap();
    let at_kill = read_info(&newest).unwrap().step;
    assert!(at_kill >= 30);
    let target = at_kill + 20;
    let out = train(run, target);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains(&format!("resuming at step {at_kill}")), "{stderr}");

    // Step counter and samples continue; the log holds every logged step exactly once.
    let last = RunDir::new(run).models().join(format!("model-{target:09}.json"));
    let info = read_info(&last).unwrap();
    assert_eq!((info.step, info.samples), (target, target * 32));
    let steps: Vec<u64> = read_scalars(&RunDir::new(run).scalars()).unwrap().iter().map(|row| row[0] as u64).collect();
    assert_eq!(steps, (1..=target / 5).map(|k| 5 * k).collect::<Vec<u64>>());

    // TensorBoard: one event file per session; the resumed one starts after the checkpoint, and every point of
    // scalars.csv is in the event files with the same value.
    let mut events: Vec<_> = std::fs::read_dir(RunDir::new(run).logs())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with("events.out.tfevents"))
        .collect();
    // In session order (names hold the start second and the pid, which need not order them).
    events.sort_by_key(|p| tensorboard::points(p, "policy_loss").first().map(|p| p.0));
    assert_eq!(events.len(), 2, "{events:?}");
    let resumed = tensorboard::points(&events[1], "policy_loss");
    assert_eq!(resumed.first().map(|p| p.0), Some(at_kill as i64 + 5));
    let mut all = tensorboard::points(&events[0], "policy_loss");
    all.extend(resumed);
    for row in read_scalars(&RunDir::new(run).scalars()).unwrap() {
        let point = all.iter().rev().find(|p| p.0 == row[0] as i64).expect("a TensorBoard point per logged step");
        assert_eq!(point.1, row[7] as f32);
    }

    // The curves picture is redrawn at each checkpoint.
    let svg = std::fs::read_to_string(RunDir::new(run).curves()).unwrap();
    assert!(svg.contains("<svg") && svg.contains("policy_loss") && svg.contains("learning rate"));

    // Weights and optimiser state continued: the result is the one of a run never interrupted.
    let straight_scratch = imported_run("train-straight");
    let straight = straight_scratch.path();
    assert!(train(straight, target).status.success());
    let (a, b) = (
        policy_outputs(&last),
        policy_outputs(&RunDir::new(straight).models().join(format!("model-{target:09}.json"))),
    );
    let diff = a.iter().zip(&b).map(|(x, y)| (x - y).abs()).fold(0f32, f32::max);
    assert!(diff < 1e-5, "the resumed run differs from the uninterrupted one by {diff}");
}

#[test]
fn corrupt_shards_are_skipped_by_name_and_another_architecture_is_refused() {
    let scratch = imported_run("train-bad");
    let run = scratch.path();
    let replay = RunDir::new(run).replay();
    let good = std::fs::read_dir(&replay).unwrap().next().unwrap().unwrap().path();
    let bytes = std::fs::read(&good).unwrap();
    std::fs::write(replay.join("truncated.npz"), &bytes[..bytes.len() / 3]).unwrap();
    std::fs::write(replay.join("garbage.npz"), b"PK\x03\x04 not really").unwrap();
    let out = train(run, 10);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("truncated.npz") && stderr.contains("garbage.npz"), "{stderr}");

    std::fs::write(RunDir::new(run).config(), CONFIG.replace("blocks = 1", "blocks = 2")).unwrap();
    let out = train(run, 20);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("model-000000010") && stderr.contains("1x8") && stderr.contains("2x8"), "{stderr}");
}

/// `average` writes the mean of a run's newest checkpoints as a checkpoint of its own that loads and plays,
/// naming what it averaged, and refuses to write over a checkpoint as trained.
#[test]
fn the_average_of_a_runs_checkpoints_loads_and_leaves_them_alone() {
    let scratch = imported_run("average");
    let run = scratch.path();
    assert!(train(run, 30).status.success());
    let models = RunDir::new(run).models();
    let out_dir = run.join("average");
    let out =
        bin().args(["average", "--out", out_dir.to_str().unwrap(), "--last", "2", run.to_str().unwrap()]).output();
    let out = out.unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let average = out_dir.join("model-000000030.json");
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), average.to_str().unwrap());
    let named = read_info(&average).unwrap().averaged_from;
    assert_eq!(named.len(), 2);
    assert!(named[0].ends_with("model-000000020.json") && named[1].ends_with("model-000000030.json"), "{named:?}");
    let outputs = policy_outputs(&average);
    for step in [20, 30] {
        let trained = policy_outputs(&models.join(format!("model-{step:09}.json")));
        assert!(trained.iter().zip(&outputs).any(|(a, b)| (a - b).abs() > 1e-4), "the average plays as step {step}");
    }

    let weights = models.join("model-000000030.bpk");
    let before = std::fs::read(&weights).unwrap();
    let out = bin().args(["average", "--out", models.to_str().unwrap(), run.to_str().unwrap()]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && stderr.contains("a directory of its own"), "{stderr}");
    assert_eq!(std::fs::read(&weights).unwrap(), before);
    assert_eq!(othello_net::list_checkpoints(&models).len(), 4, "the initialisation and steps 10, 20, 30");
}

#[test]
fn exports_agree_with_the_numpy_reference_and_onnxruntime() {
    let scratch = imported_run("export");
    let run = scratch.path();
    // A value head wider than one channel: the exporters and the readers follow its shape.
    std::fs::write(RunDir::new(run).config(), CONFIG.replace("filters = 8", "filters = 8\nvalue_channels = 2"))
        .unwrap();
    assert!(train(run, 20).status.success());
    let out_dir = run.join("export");
    let out = bin().args(["export", "--model", run.to_str().unwrap(), "--out", out_dir.to_str().unwrap()]).output();
    let out = out.unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let card: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("model-card.json")).unwrap()).unwrap();
    assert_eq!(card["architecture"]["blocks"], 1);
    assert_eq!(card["architecture"]["value_channels"], 2);
    assert_eq!(card["input"]["planes"][2]["name"], "legal");
    assert_eq!(card["training"]["step"], 20);

    let python = python_env();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("python/check_export.py");
    let py = Command::new(&python).arg(&script).arg(&out_dir).output().unwrap();
    let report = String::from_utf8_lossy(&py.stdout);
    assert!(py.status.success(), "{report}{}", String::from_utf8_lossy(&py.stderr));
    assert!(report.contains("onnxruntime") && report.contains("all outputs agree"), "{report}");

    // The check can fail: damage the last weights of the safetensors file and the numpy reference disagrees.
    let mut net = std::fs::read(out_dir.join("model.safetensors")).unwrap();
    let n = net.len();
    for b in &mut net[n - 64..] {
        *b ^= 0x40;
    }
    std::fs::write(out_dir.join("model.safetensors"), net).unwrap();
    let py = Command::new(&python).arg(&script).arg(&out_dir).arg("--no-onnx").output().unwrap();
    assert!(!py.status.success(), "{}", String::from_utf8_lossy(&py.stdout));
}

/// Python's encoding equals Rust's on thousands of random positions (8x8 and 6x6; the check fails on a changed
/// plane), and `python/play.py` on the exported network picks the move the `policy:model=` agent picks (asked
/// through the `gtp` mode).
#[test]
fn the_python_frontend_encodes_and_plays_as_the_rust_player() {
    use othello_core::{Game, Move, Rules, Status, Symmetry};
    use rand::{Rng, SeedableRng};
    let scratch = imported_run("python-frontend");
    let run = scratch.path();
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(9);
    let mut lines = String::new();
    let mut games = vec![];
    for i in 0..120 {
        let rules = if i % 2 == 0 { Rules::othello() } else { Rules::othello().with_size(6).unwrap() };
        let mut game = Game::new(rules);
        while !game.is_over() {
            let pos = game.position();
            let mut planes = vec![];
            othello_net::encode(&rules, pos, Symmetry::IDENTITY, &mut planes);
            let bits: String = planes.iter().map(|&x| if x > 0.5 { '1' } else { '0' }).collect();
            lines.push_str(&format!("{} {:x} {:x} {bits}\n", rules.size, pos.player.0, pos.opponent.0));
            let mv = match game.status() {
                Status::Moves(m) => Move::Play(m.nth(rng.random_range(0..m.count())).unwrap()),
                _ => Move::Pass,
            };
            game.push(mv).unwrap();
        }
        games.push(game);
    }
    assert!(lines.lines().count() > 3000);
    let file = run.join("encodings.txt");
    std::fs::write(&file, &lines).unwrap();
    let interpreter = python_env();
    let python = Path::new(env!("CARGO_MANIFEST_DIR")).join("python");
    let check =
        |file: &Path| Command::new(&interpreter).arg(python.join("check_encoding.py")).arg(file).output().unwrap();
    let out = check(&file);
    assert!(out.status.success(), "{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    // A stable-disc plane changed by one square is caught.
    let first = lines.lines().find(|l| l.starts_with("8 ")).unwrap();
    let mut damaged: Vec<char> = first.chars().collect();
    let at = damaged.len() - 2 * 64 + 5;
    damaged[at] = if damaged[at] == '1' { '0' } else { '1' };
    std::fs::write(&file, damaged.into_iter().collect::<String>() + "\n").unwrap();
    assert!(!check(&file).status.success());

    assert!(train(run, 20).status.success());
    let export = run.join("export");
    let out = bin().args(["export", "--model", run.to_str().unwrap(), "--out", export.to_str().unwrap()]).output();
    assert!(out.unwrap().status.success());
    let spec = format!("policy:model={}", run.display());
    for game in games.iter().step_by(2).take(12) {
        // A position some way into an 8x8 game, with a choice of moves.
        let plies = (0..game.moves().len())
            .filter(|&n| {
                let g = Game::replay(game.rules, &game.moves()[..n]).unwrap();
                matches!(g.status(), Status::Moves(m) if m.count() > 1)
            })
            .nth(10)
            .unwrap();
        let moves = &game.moves()[..plies];
        let transcript: String =
            moves.iter().map(|m| if *m == Move::Pass { "pa".into() } else { m.to_string() }).collect();
        let mut gtp = String::new();
        let mut g = Game::new(game.rules);
        for &mv in moves {
            let colour = if g.position().side == othello_core::Color::Black { "b" } else { "w" };
            gtp.push_str(&format!("play {colour} {}\n", if mv == Move::Pass { "pass".into() } else { mv.to_string() }));
            g.push(mv).unwrap();
        }
        let colour = if g.position().side == othello_core::Color::Black { "b" } else { "w" };
        gtp.push_str(&format!("genmove {colour}\nquit\n"));
        let mut child =
            bin().args(["gtp", "--agent", &spec]).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
        use std::io::Write;
        child.stdin.take().unwrap().write_all(gtp.as_bytes()).unwrap();
        let replies = String::from_utf8(child.wait_with_output().unwrap().stdout).unwrap();
        let rust = replies
            .split("\n\n")
            .filter(|r| !r.trim().is_empty())
            .nth(moves.len())
            .unwrap()
            .trim_start_matches('=')
            .trim();
        let py = Command::new(&interpreter).arg(python.join("play.py")).arg(&export).arg(&transcript).output().unwrap();
        assert!(py.status.success(), "{}", String::from_utf8_lossy(&py.stderr));
        assert_eq!(String::from_utf8_lossy(&py.stdout).trim(), rust, "after {transcript}");
    }
}

/// A warm start: a fresh run begins from another run's checkpoint (the same weights as its step 0), is labelled
/// so in its ratings picture, and goes on training; a checkpoint of another architecture, or a run with
/// checkpoints of its own, is refused by name.
#[test]
fn a_warm_start_begins_a_fresh_run_from_a_checkpoint() {
    let source_scratch = imported_run("warm-source");
    let source_run = source_scratch.path();
    assert!(train(source_run, 10).status.success());
    let source = RunDir::new(source_run).models().join("model-000000010.json");
    let scratch = temp_run("warm-start");
    let run = scratch.path();
    let config = run.join("warm.toml");
    let small = "[selfplay]\nsims = 4\ngames_in_flight = 8\ngames_per_shard = 8\n\
                 [eval]\nladder = [\"random\"]\ngames = 2\nsims = 4\n";
    std::fs::write(&config, format!("{CONFIG}{small}")).unwrap();
    let warm_run = |dir: &Path, config: &Path| {
        bin()
            .args(["run", "--run", dir.to_str().unwrap(), "--config", config.to_str().unwrap()])
            .args(["--steps", "20", "--threads", "2", "--warm-start", source.to_str().unwrap()])
            .output()
            .unwrap()
    };
    let out = warm_run(run, &config);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let dir = RunDir::new(run);
    assert_eq!(std::fs::read_to_string(dir.warm_start()).unwrap().trim(), source.to_str().unwrap());
    // Step 0 is the source's network: the same outputs on the same positions.
    let device = Device::flex();
    let rules = othello_core::Rules::othello();
    let positions: Vec<_> = ["f5", "f5d6c3", "f5d6c3d3c4"]
        .iter()
        .map(|t| *othello_core::Game::replay(rules, &othello_core::parse_transcript(t).unwrap()).unwrap().position())
        .collect();
    let outputs = |path: &Path| {
        let (net, _) = load_checkpoint(path, None, &device).unwrap();
        let predictor = othello_net::Predictor::new(net, device.clone());
        let p = othello_net::predict(&predictor, &rules, &positions, &[othello_core::Symmetry::IDENTITY; 3]);
        p.iter().map(|p| (p.policy.to_vec(), p.value)).collect::<Vec<_>>()
    };
    assert_eq!(outputs(&dir.models().join("model-000000000.json")), outputs(&source));
    assert!(dir.models().join("model-000000020.json").exists(), "training went on from it");
    let svg = std::fs::read_to_string(dir.eval().join("ratings.svg")).unwrap();
    assert!(svg.contains("(warm start)"), "the run is labelled a warm start");
    // Run again with the same command: it resumes.
    assert!(warm_run(run, &config).status.success());

    // Another architecture is refused, naming the checkpoint; so is a run with checkpoints of its own.
    let other_scratch = temp_run("warm-other");
    let other = other_scratch.path();
    let wider = other.join("wider.toml");
    std::fs::write(&wider, format!("{}{small}", CONFIG.replace("filters = 8", "filters = 16"))).unwrap();
    let out = warm_run(other, &wider);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && stderr.contains("model-000000010"), "{stderr}");
    let out = warm_run(source_run, &RunDir::new(source_run).config());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && stderr.contains("checkpoints of its own"), "{stderr}");
}
