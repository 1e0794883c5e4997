//! End-to-end tests of the training stage: a trainer killed with `kill -9` resumes exactly, bad inputs are named,
//! and an export agrees with the numpy reference and onnxruntime.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use burn::module::Module;
use burn::tensor::{Device, Tensor, TensorData};
use othello_net::{load_model, read_info};
use othello_run::RunDir;
use othello_train::log::read_scalars;

mod common;
use common::{bin, ensure_python, shared, temp_run};

const CONFIG: &str = "seed = 5\n[network]\nblocks = 1\nfilters = 8\n[train]\nbatch_size = 32\nmin_positions = 1\n\
                      samples_per_position = 1000.0\ncheckpoint_every = 10\nlog_every = 5\nwarmup_steps = 5\n";

/// A run with WTHOR games imported and the small config.
fn imported_run(name: &str) -> std::path::PathBuf {
    let run = temp_run(name);
    std::fs::write(RunDir::new(&run).config(), CONFIG).unwrap();
    let out = bin()
        .args(["import-wthor", shared("data/wthor/WTH_1985.wtb").to_str().unwrap(), "--run", run.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    run
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
    let (net, _) = load_model(model, None, &device).unwrap();
    let planes: Vec<f32> = (0..4 * 6 * 64).map(|i| ((i * 7) % 5 == 0) as u8 as f32).collect();
    let input = Tensor::<4>::from_data(TensorData::new(planes, [4, 6, 8, 8]), &device);
    net.valid().forward(input).policy.into_data().try_into_vec::<f32>().unwrap()
}

#[test]
fn a_trainer_killed_with_sigkill_resumes_where_it_stopped() {
    let run = imported_run("train-kill");
    let mut child = bin()
        .env("RAYON_NUM_THREADS", "1")
        .args(["train", "--run", run.to_str().unwrap(), "--steps", "100000"])
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while !RunDir::new(&run).models().join("model-000000030.json").exists()
        && started.elapsed() < Duration::from_secs(120)
    {
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let newest = othello_net::newest_model(&RunDir::new(&run).models()).unwrap();
    let at_kill = read_info(&newest).unwrap().step;
    assert!(at_kill >= 30);
    let target = at_kill + 20;
    let out = train(&run, target);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains(&format!("resuming at step {at_kill}")), "{stderr}");

    // Step counter and samples continue; the log holds every logged step exactly once.
    let last = RunDir::new(&run).models().join(format!("model-{target:09}.json"));
    let info = read_info(&last).unwrap();
    assert_eq!((info.step, info.samples), (target, target * 32));
    let steps: Vec<u64> = read_scalars(&RunDir::new(&run).scalars()).unwrap().iter().map(|row| row[0] as u64).collect();
    assert_eq!(steps, (1..=target / 5).map(|k| 5 * k).collect::<Vec<u64>>());

    // TensorBoard: one event file per session; the resumed one starts after the checkpoint, and every point of
    // scalars.csv is in the event files with the same value.
    let mut events: Vec<_> = std::fs::read_dir(RunDir::new(&run).logs())
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
    for row in read_scalars(&RunDir::new(&run).scalars()).unwrap() {
        let point = all.iter().rev().find(|p| p.0 == row[0] as i64).expect("a TensorBoard point per logged step");
        assert_eq!(point.1, row[7] as f32);
    }

    // The curves picture is redrawn at each checkpoint.
    let svg = std::fs::read_to_string(RunDir::new(&run).curves()).unwrap();
    assert!(svg.contains("<svg") && svg.contains("policy_loss") && svg.contains("learning rate"));

    // Weights and optimiser state continued: the result is the one of a run never interrupted.
    let straight = imported_run("train-straight");
    assert!(train(&straight, target).status.success());
    let (a, b) = (
        policy_outputs(&last),
        policy_outputs(&RunDir::new(&straight).models().join(format!("model-{target:09}.json"))),
    );
    let diff = a.iter().zip(&b).map(|(x, y)| (x - y).abs()).fold(0f32, f32::max);
    assert!(diff < 1e-5, "the resumed run differs from the uninterrupted one by {diff}");
    let _ = std::fs::remove_dir_all(&run);
    let _ = std::fs::remove_dir_all(&straight);
}

#[test]
fn corrupt_shards_are_skipped_by_name_and_another_architecture_is_refused() {
    let run = imported_run("train-bad");
    let replay = RunDir::new(&run).replay();
    let good = std::fs::read_dir(&replay).unwrap().next().unwrap().unwrap().path();
    let bytes = std::fs::read(&good).unwrap();
    std::fs::write(replay.join("truncated.npz"), &bytes[..bytes.len() / 3]).unwrap();
    std::fs::write(replay.join("garbage.npz"), b"PK\x03\x04 not really").unwrap();
    let out = train(&run, 10);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("truncated.npz") && stderr.contains("garbage.npz"), "{stderr}");

    std::fs::write(RunDir::new(&run).config(), CONFIG.replace("blocks = 1", "blocks = 2")).unwrap();
    let out = train(&run, 20);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("model-000000010.bpk") && stderr.contains("1x8") && stderr.contains("2x8"), "{stderr}");
    let _ = std::fs::remove_dir_all(&run);
}

#[test]
fn exports_agree_with_the_numpy_reference_and_onnxruntime() {
    let run = imported_run("export");
    assert!(train(&run, 20).status.success());
    let out_dir = run.join("export");
    let out = bin().args(["export", "--model", run.to_str().unwrap(), "--out", out_dir.to_str().unwrap()]).output();
    let out = out.unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let card: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("model-card.json")).unwrap()).unwrap();
    assert_eq!(card["architecture"]["blocks"], 1);
    assert_eq!(card["input"]["planes"][2]["name"], "legal");
    assert_eq!(card["training"]["step"], 20);

    ensure_python(&[("numpy", "numpy"), ("onnxruntime", "onnxruntime")]);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("python/check_export.py");
    let py = Command::new("python3").arg(&script).arg(&out_dir).output().unwrap();
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
    let py = Command::new("python3").arg(&script).arg(&out_dir).arg("--no-onnx").output().unwrap();
    assert!(!py.status.success(), "{}", String::from_utf8_lossy(&py.stdout));
    let _ = std::fs::remove_dir_all(&run);
}

#[test]
fn the_pipeline_trains_from_self_play_it_starts_itself() {
    let run = temp_run("pipeline");
    let config = "seed = 2\n[selfplay]\nsimulations = 8\ngames_per_shard = 2\n[network]\nblocks = 1\nfilters = 8\n\
                  [train]\nbatch_size = 32\nmin_positions = 120\ncheckpoint_every = 10\nlog_every = 5\npoll_seconds = 0.2\n";
    std::fs::write(RunDir::new(&run).config(), config).unwrap();
    let out = bin().args(["pipeline", "--run", run.to_str().unwrap(), "--steps", "20", "--threads", "1"]).output();
    let out = out.unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let info = read_info(&RunDir::new(&run).models().join("model-000000020.json")).unwrap();
    let training = info.training.unwrap();
    // The throttle held: no more than 4 samples per self-play position that had arrived.
    assert!(info.samples as f64 <= 4.0 * training.positions_seen as f64, "{training:?}");
    let log = std::fs::read_to_string(RunDir::new(&run).stage_log("train")).unwrap();
    assert!(log.contains("checkpoint") && log.contains("stopped at step 20"), "{log}");
    let _ = std::fs::remove_dir_all(&run);
}
