//! Model checkpoints in `RUN/models` ([`othello_run::RunDir::models`]): the weights (`model-<step>.bpk`, Burn's
//! burnpack format) and a JSON sidecar (`model-<step>.json`) that records the architecture, so that loading into
//! another architecture fails with a clear message. A model exists once its sidecar does: weights first, then the
//! sidecar, each written atomically.

use std::path::{Path, PathBuf};

use burn::module::Module;
use burn::tensor::Device;
use othello_run::atomic::{temp_path, write_atomic};
use othello_run::RunDir;
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::network::{NetConfig, Network};

#[derive(Debug, Error)]
#[error("checkpoint {}: {problem}", path.display())]
pub struct CheckpointError {
    pub path: PathBuf,
    pub problem: String,
}

/// The sidecar of a checkpoint.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CheckpointInfo {
    pub architecture: NetConfig,
    /// Training step (0 for a fresh random initialisation).
    pub step: u64,
    /// Training samples seen.
    pub samples: u64,
    /// What the trainer knew when it wrote the checkpoint (absent for a random initialisation).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub training: Option<TrainingInfo>,
    /// For a weight average (`othello-zero average`): the checkpoints averaged, oldest first, as they were named;
    /// the rest of the sidecar is the newest one's. Empty (absent) for a checkpoint as trained.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub averaged_from: Vec<String>,
    /// The search the network ships with, as a `net:` spec's settings (`"sims=16384,gumbel=16"`): what a `net:`
    /// spec leaves out. Written by hand for a shipped network; absent (the harness's defaults) for a run's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub player: Option<String>,
}

impl CheckpointInfo {
    /// The sidecar of a network the trainer did not write (a random initialisation, a test's): no training record.
    pub fn untrained(architecture: NetConfig, step: u64) -> CheckpointInfo {
        CheckpointInfo { architecture, step, samples: 0, training: None, averaged_from: Vec::new(), player: None }
    }
}

/// The trainer's part of a sidecar.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TrainingInfo {
    /// The rules of the run (`Rules`'s string form).
    pub rules: String,
    /// Self-play positions that had arrived, and the replay window's size, at this step.
    pub positions_seen: u64,
    pub window: u64,
    /// Mean losses over the last logging interval, by name.
    pub losses: std::collections::BTreeMap<String, f32>,
    /// FNV-1a hash of the run config the trainer ran with (hex), to tell runs apart.
    pub config_hash: String,
    /// The optimiser state file beside the weights (`optimizer-<step>.bpk`), while it is kept.
    pub optimizer_state: Option<String>,
    /// When the checkpoint was written, in seconds since the Unix epoch (0 in sidecars older than the field):
    /// the ratings picture's wall-time axis.
    #[serde(default)]
    pub written_at: u64,
    /// Seconds the run had been running when the checkpoint was written, summed over the trainer's lives (a
    /// resumed trainer continues from its checkpoint's figure, so the time between a run's stop and its resume
    /// does not count). Absent in older sidecars.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_seconds: Option<u64>,
}

impl TrainingInfo {
    /// Seconds into its run at which the checkpoint was written: `run_seconds`, or in older sidecars the wall time
    /// since the run began (`started_at`, see `RunDir::started_at`), or None where neither is known.
    pub fn seconds_into_run(&self, started_at: Option<u64>) -> Option<u64> {
        self.run_seconds.or_else(|| {
            let started = started_at.filter(|&s| s > 0)?;
            (self.written_at > 0).then(|| self.written_at.saturating_sub(started))
        })
    }
}

/// File stem of the model at `step`.
pub fn checkpoint_stem(step: u64) -> String {
    format!("model-{step:09}")
}

/// Saves `net` as `dir/model-<step>.{bpk,json}`; returns the sidecar's path.
pub fn save_checkpoint(dir: &Path, net: &Network, info: &CheckpointInfo) -> Result<PathBuf, CheckpointError> {
    let stem = checkpoint_stem(info.step);
    let (weights, sidecar) = (dir.join(format!("{stem}.bpk")), dir.join(format!("{stem}.json")));
    let err = |path: &Path, problem: String| CheckpointError { path: path.to_path_buf(), problem };
    std::fs::create_dir_all(dir).map_err(|e| err(dir, format!("creating the directory: {e}")))?;
    let tmp_weights = temp_path(&weights);
    net.clone().save_file(&tmp_weights).map_err(|e| err(&weights, format!("writing the weights: {e:?}")))?;
    std::fs::rename(&tmp_weights, &weights).map_err(|e| err(&weights, e.to_string()))?;
    let json = serde_json::to_string_pretty(info).map_err(|e| err(&sidecar, e.to_string()))?;
    write_atomic(&sidecar, json.as_bytes()).map_err(|e| err(&sidecar, e.to_string()))?;
    Ok(sidecar)
}

/// Reads a sidecar (given the `.json` or the `.bpk` path).
pub fn read_info(path: &Path) -> Result<CheckpointInfo, CheckpointError> {
    let sidecar = path.with_extension("json");
    let err = |problem: String| CheckpointError { path: sidecar.clone(), problem };
    let text = std::fs::read_to_string(&sidecar).map_err(|e| err(format!("reading the sidecar: {e}")))?;
    let info: CheckpointInfo = serde_json::from_str(&text).map_err(|e| err(format!("bad sidecar: {e}")))?;
    info.architecture.validate().map_err(|e| err(format!("bad sidecar: architecture: {e}")))?;
    Ok(info)
}

/// Loads a model; with `expected`, a checkpoint of another architecture is an error naming both.
pub fn load_checkpoint(
    path: &Path,
    expected: Option<&NetConfig>,
    device: &Device,
) -> Result<(Network, CheckpointInfo), CheckpointError> {
    let info = read_info(path)?;
    let weights = path.with_extension("bpk");
    if let Some(want) = expected {
        if *want != info.architecture {
            return Err(CheckpointError {
                path: weights,
                problem: format!("it is a {} network, the run expects {want}", info.architecture),
            });
        }
    }
    let net = info
        .architecture
        .init(device)
        .try_load_file(&weights)
        .map_err(|e| CheckpointError { path: weights.clone(), problem: format!("reading the weights: {e:?}") })?;
    Ok((net, info))
}

/// The models (sidecars) in `dir`, oldest (lowest step) first; none when the directory cannot be read.
pub fn list_checkpoints(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else { return vec![] };
    let mut models: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.extension().is_some_and(|e| e == "json")
                && p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("model-"))
        })
        .collect();
    // Steps are zero-padded in the names: name order is step order.
    models.sort();
    models
}

/// The checkpoint `model` names: a checkpoint (its `.json` sidecar or `.bpk` weights), or a models directory or
/// a run directory (their newest checkpoint). Returns the sidecar's path.
pub fn resolve_checkpoint(model: &Path) -> Result<PathBuf, CheckpointError> {
    let err = |problem: String| CheckpointError { path: model.to_path_buf(), problem };
    if model.is_dir() {
        let models = checkpoints_dir(model);
        return newest_checkpoint(&models).ok_or_else(|| err(format!("no checkpoint in {}", models.display())));
    }
    let sidecar = model.with_extension("json");
    if sidecar.is_file() {
        return Ok(sidecar);
    }
    Err(err("neither a checkpoint (model-*.json with its .bpk) nor a run directory".into()))
}

/// The directory of checkpoints `dir` names: itself where it holds one, else a run directory's `models`.
pub fn checkpoints_dir(dir: &Path) -> PathBuf {
    if newest_checkpoint(dir).is_some() {
        dir.to_path_buf()
    } else {
        RunDir::new(dir).models()
    }
}

/// The newest checkpoint (highest step) in `dir`, if any.
pub fn newest_checkpoint(dir: &Path) -> Option<PathBuf> {
    list_checkpoints(dir).pop()
}

/// In a gated run, the model self-play plays with (its sidecar): the one `RUN/models/best.txt` names, the last
/// checkpoint that passed its test against the best before it; none while the file or the model is missing.
pub fn best_checkpoint(run: &RunDir) -> Option<PathBuf> {
    let name = std::fs::read_to_string(run.best_checkpoint_record()).ok()?;
    let path = run.models().join(name.trim());
    path.is_file().then_some(path)
}

/// The model self-play plays with (its sidecar): in a gated run the best, else the newest; none before the first.
pub fn selfplay_checkpoint(run: &RunDir, gated: bool) -> Option<PathBuf> {
    if gated {
        best_checkpoint(run)
    } else {
        newest_checkpoint(&run.models())
    }
}

/// Makes `model` (a sidecar in RUN/models) the one [`best_checkpoint`] names, atomically.
pub fn set_best_checkpoint(run: &RunDir, model: &Path) -> Result<(), CheckpointError> {
    let best = run.best_checkpoint_record();
    let err = |problem: String| CheckpointError { path: best.clone(), problem };
    let name = model.file_name().ok_or_else(|| err(format!("{} names no file", model.display())))?;
    write_atomic(&best, format!("{}\n", name.to_string_lossy()).as_bytes()).map_err(|e| err(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::predict::{predict, Predictor};
    use crate::testing::{positions, tiny};
    use othello_core::{Rules, Symmetry};

    /// The run's clock: the sidecar's own figure where it has one (it survives stops), else the wall time since
    /// the run began.
    #[test]
    fn seconds_into_run_prefers_the_run_clock_and_falls_back_to_wall_time() {
        let info = TrainingInfo { written_at: 10_000, run_seconds: Some(42), ..Default::default() };
        assert_eq!(info.seconds_into_run(Some(1_000)), Some(42));
        let older = TrainingInfo { written_at: 10_000, ..Default::default() };
        assert_eq!(older.seconds_into_run(Some(1_000)), Some(9_000));
        assert_eq!(older.seconds_into_run(None), None);
        assert_eq!(TrainingInfo::default().seconds_into_run(Some(1_000)), None);
    }

    #[test]
    fn checkpoints_round_trip_and_refuse_another_architecture() {
        let (config, net, device) = tiny();
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path().to_path_buf();
        let info = CheckpointInfo::untrained(config.clone(), 5);
        let path = save_checkpoint(&dir, &net, &info).unwrap();
        assert_eq!(newest_checkpoint(&dir), Some(path.clone()));
        let (loaded, read) = load_checkpoint(&path, Some(&config), &device).unwrap();
        assert_eq!(read, info);
        let rules = Rules::othello();
        let pos = positions(&rules);
        let ids = vec![Symmetry::IDENTITY; pos.len()];
        let a = predict(&Predictor::new(net.clone(), device.clone()), &rules, &pos, &ids);
        let b = predict(&Predictor::new(loaded.clone(), device.clone()), &rules, &pos, &ids);
        assert_eq!(a, b);
        let err = load_checkpoint(&path, Some(&NetConfig::new(2, 8)), &device).unwrap_err();
        assert!(err.to_string().contains("1x8") && err.to_string().contains("2x8"), "{err}");
        // Damaged weights are an error, not a panic.
        let weights = path.with_extension("bpk");
        let bytes = std::fs::read(&weights).unwrap();
        std::fs::write(&weights, &bytes[..bytes.len() / 3]).unwrap();
        assert!(load_checkpoint(&path, None, &device).is_err());
        // So is a sidecar naming an architecture that cannot be built, before anything is allocated for it.
        let sidecar = path.with_extension("json");
        let text = std::fs::read_to_string(&sidecar).unwrap().replace("\"blocks\": 1", "\"blocks\": 100000000");
        std::fs::write(&sidecar, text).unwrap();
        let err = load_checkpoint(&path, None, &device).unwrap_err().to_string();
        assert!(err.contains(&*sidecar.to_string_lossy()) && err.contains("parameters"), "{err}");
    }

    /// The value head's width is part of the architecture; a sidecar written before the key existed has one channel.
    #[test]
    fn value_channels_round_trip_and_default_to_one() {
        let device = Device::flex();
        let wide = NetConfig { value_channels: 4, ..NetConfig::new(1, 8) };
        let net = wide.init_seeded(&device, 11);
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path().to_path_buf();
        let info = CheckpointInfo::untrained(wide.clone(), 1);
        let path = save_checkpoint(&dir, &net, &info).unwrap();
        let (loaded, _) = load_checkpoint(&path, Some(&wide), &device).unwrap();
        let rules = Rules::othello();
        let pos = positions(&rules);
        let ids = vec![Symmetry::IDENTITY; pos.len()];
        assert_eq!(
            predict(&Predictor::new(net.clone(), device.clone()), &rules, &pos, &ids),
            predict(&Predictor::new(loaded.clone(), device.clone()), &rules, &pos, &ids)
        );
        let err = load_checkpoint(&path, Some(&NetConfig::new(1, 8)), &device).unwrap_err();
        assert!(err.to_string().contains("value head 4x64") && err.to_string().contains("value head 1x64"), "{err}");
        let old: NetConfig =
            serde_json::from_str(r#"{"blocks": 4, "filters": 64, "input_planes": 6, "value_hidden": 64}"#).unwrap();
        assert_eq!(old, NetConfig::new(4, 64));
    }
}
