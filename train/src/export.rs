//! Export for other frontends: a checkpoint's weights as safetensors (PyTorch layout) and as ONNX, a model card
//! (JSON) that says what goes in and what comes out, and `examples.npz`: inputs and this crate's outputs on real
//! positions, so that any loader can check itself (python/check_export.py does, with numpy and onnxruntime).

use std::collections::BTreeMap;
use std::io::Cursor;
use std::path::{Path, PathBuf};

use burn::module::Module;
use burn::store::{BurnToPyTorchAdapter, ModuleSnapshot, SafetensorsStore};
use burn::tensor::{Device, Tensor, TensorData};
use ndarray::{Array2, Array4};
use ndarray_npy::NpzWriter;
use othello_core::playout::game_rng;
use othello_core::{Position, Rules, Symmetry};
use othello_net::{encode, load_model, ModelInfo, Network, PLANES};
use othello_run::{temp_path, write_atomic};
use rand::Rng;
use serde_json::json;
use thiserror::Error;

use crate::onnx::{onnx_model, Weights};

#[derive(Debug, Error)]
#[error("export to {}: {problem}", path.display())]
pub struct ExportError {
    pub path: PathBuf,
    pub problem: String,
}

/// What an export wrote.
#[derive(Debug)]
pub struct Exported {
    pub safetensors: PathBuf,
    pub onnx: PathBuf,
    pub card: PathBuf,
    pub examples: PathBuf,
}

/// Positions in `examples.npz`.
pub const EXAMPLES: usize = 64;

/// Exports the model at `model` (its `.json` or `.bpk`) into `out`.
pub fn export(model: &Path, out: &Path) -> Result<Exported, ExportError> {
    let device = Device::flex();
    let (net, info) = load_model(model, None, &device)
        .map_err(|e| ExportError { path: out.to_path_buf(), problem: e.to_string() })?;
    let net = net.valid();
    let fail = |path: &Path, problem: String| ExportError { path: path.to_path_buf(), problem };
    std::fs::create_dir_all(out).map_err(|e| fail(out, e.to_string()))?;
    let rules: Rules = match info.training.as_ref() {
        Some(t) => t.rules.parse().map_err(|e| fail(model, format!("rules in the sidecar: {e}")))?,
        None => Rules::othello(),
    };

    let safetensors = out.join("model.safetensors");
    let tmp = temp_path(&safetensors);
    let mut store = SafetensorsStore::from_file(&tmp)
        .overwrite(true)
        .with_to_adapter(BurnToPyTorchAdapter)
        .metadata("format", "othello-zero network")
        .metadata("card", "model-card.json");
    net.save_into(&mut store).map_err(|e| fail(&safetensors, format!("{e:?}")))?;
    // Rewritten rather than renamed: the store creates its file private (0600), an export is for sharing.
    let mut bytes = std::fs::read(&tmp).map_err(|e| fail(&safetensors, e.to_string()))?;
    let _ = std::fs::remove_file(&tmp);
    sort_header(&mut bytes).map_err(|e| fail(&safetensors, e))?;
    write_atomic(&safetensors, &bytes).map_err(|e| fail(&safetensors, e.to_string()))?;
    let weights = read_safetensors(&bytes).map_err(|e| fail(&safetensors, e))?;

    let card = model_card(&info, &rules, &weights, model);
    let metadata: Vec<(String, String)> = vec![("model_card".into(), card.to_string())];
    let onnx = out.join("model.onnx");
    let encoded = onnx_model(&weights, info.architecture.blocks, info.architecture.input_planes, &metadata)
        .map_err(|e| fail(&onnx, e))?;
    write_atomic(&onnx, &encoded).map_err(|e| fail(&onnx, e.to_string()))?;
    let card_path = out.join("model-card.json");
    let text = serde_json::to_string_pretty(&card).map_err(|e| fail(&card_path, e.to_string()))?;
    write_atomic(&card_path, text.as_bytes()).map_err(|e| fail(&card_path, e.to_string()))?;
    let examples = out.join("examples.npz");
    write_examples(&net, &device, &rules, &examples).map_err(|e| fail(&examples, e))?;
    Ok(Exported { safetensors, onnx, card: card_path, examples })
}

/// The safetensors header's keys in order (the store writes its metadata in a hash map's order), so that the same
/// checkpoint exports to the same bytes. The header keeps its length: the same keys and values, padded as before.
fn sort_header(bytes: &mut [u8]) -> Result<(), String> {
    let length = bytes.get(..8).map(|b| u64::from_le_bytes(b.try_into().unwrap()) as usize);
    let header = length.and_then(|n| bytes.get_mut(8..8 + n)).ok_or("no safetensors header")?;
    let parsed: serde_json::Value = serde_json::from_slice(header).map_err(|e| e.to_string())?;
    // serde_json's maps are ordered by key.
    let sorted = serde_json::to_vec(&parsed).map_err(|e| e.to_string())?;
    if sorted.len() > header.len() {
        return Err("the sorted safetensors header is longer than the store's".into());
    }
    header.fill(b' ');
    header[..sorted.len()].copy_from_slice(&sorted);
    Ok(())
}

/// The tensors of a safetensors file (f32 only, as this network has).
pub fn read_safetensors(bytes: &[u8]) -> Result<Weights, String> {
    let tensors = safetensors::SafeTensors::deserialize(bytes).map_err(|e| e.to_string())?;
    let mut weights = Weights::new();
    for (name, view) in tensors.tensors() {
        if view.dtype() != safetensors::Dtype::F32 {
            return Err(format!("tensor {name} is {:?}, expected F32", view.dtype()));
        }
        let values = view.data().chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
        weights.insert(name, (view.shape().to_vec(), values));
    }
    Ok(weights)
}

fn model_card(info: &ModelInfo, rules: &Rules, weights: &Weights, source: &Path) -> serde_json::Value {
    let a = &info.architecture;
    let plane_meaning = [
        "discs of the side to move",
        "discs of the opponent",
        "legal moves of the side to move",
        "squares of the board (all ones on 8x8; the top-left corner on smaller boards)",
        "stable discs of the side to move (8x8 only; zeros otherwise)",
        "stable discs of the opponent (8x8 only; zeros otherwise)",
    ];
    let planes: Vec<_> = PLANES
        .iter()
        .zip(plane_meaning)
        .enumerate()
        .map(|(i, (name, meaning))| json!({"index": i, "name": name, "meaning": meaning}))
        .collect();
    let tensors: BTreeMap<&String, &Vec<usize>> = weights.iter().map(|(k, (shape, _))| (k, shape)).collect();
    json!({
        "format": "othello-zero network",
        "format_version": 1,
        "architecture": {
            "kind": "residual tower: conv3x3-BN-ReLU stem, blocks of two conv3x3-BN with a skip connection, ReLU",
            "blocks": a.blocks,
            "filters": a.filters,
            "input_planes": a.input_planes,
            "value_channels": a.value_channels,
            "value_hidden": a.value_hidden,
            "batch_norm_epsilon": 1e-5,
            "heads": {
                "policy": "conv1x1(2)-BN-ReLU, flatten (channel, row, column), linear 128->65",
                "value": "conv1x1(value_channels)-BN-ReLU, flatten (channel, row, column), linear 64 value_channels->value_hidden, ReLU, linear value_hidden->1, tanh",
                "margin": "the value head's hidden layer, linear value_hidden->1",
                "ownership": "conv1x1(1) with bias, tanh, flatten"
            }
        },
        "input": {
            "name": "planes",
            "shape": ["batch", a.input_planes, 8, 8],
            "dtype": "float32",
            "square_order": "row-major from a1: index = 8 * row + column, a1 = 0 (top-left), h1 = 7, h8 = 63; the position is seen from the side to move",
            "planes": planes
        },
        "outputs": {
            "policy": {"shape": ["batch", 65], "meaning": "logits over the 64 squares (input order) then the pass; softmax over the legal moves only"},
            "value": {"shape": ["batch", 1], "meaning": "expected result for the side to move, -1 (loss) to 1 (win), tanh"},
            "margin": {"shape": ["batch", 1], "meaning": "expected final disc margin for the side to move, divided by 64"},
            "ownership": {"shape": ["batch", 64], "meaning": "expected final owner of each square: 1 the side to move, -1 the opponent, tanh"}
        },
        "board_size": rules.size,
        "rules": rules.to_string(),
        "training": {
            "step": info.step,
            "samples": info.samples,
            "source": source.display().to_string(),
            "details": info.training,
        },
        "files": {
            "safetensors": "model.safetensors (PyTorch layout: linear weights [out, in], batch norm weight/bias/running_mean/running_var)",
            "onnx": "model.onnx (opset 17, dynamic batch)",
            "examples": "examples.npz: planes, policy, value, margin, ownership of sample positions, as computed by othello-zero"
        },
        "tensors": tensors,
    })
}

/// Positions from seeded random games (the start included), encoded, with the network's outputs.
fn write_examples(net: &Network, device: &Device, rules: &Rules, path: &Path) -> Result<(), String> {
    let mut rng = game_rng(0x5eed, 0);
    let mut positions: Vec<Position> = vec![];
    let mut pos = rules.start_position();
    while positions.len() < EXAMPLES {
        positions.push(pos);
        let moves = rules.legal_moves(&pos);
        if moves.is_empty() {
            pos = if rules.is_over(&pos) { rules.start_position() } else { pos.pass() };
            continue;
        }
        let k = rng.random_range(0..moves.count());
        let sq = moves.into_iter().nth(k).ok_or("a legal move")?;
        pos = rules.play_legal(&pos, sq);
    }
    let mut planes = vec![];
    for p in &positions {
        encode(rules, p, Symmetry::IDENTITY, &mut planes);
    }
    let n = positions.len();
    let input = Tensor::<4>::from_data(TensorData::new(planes.clone(), [n, PLANES.len(), 8, 8]), device);
    let out = net.forward(input);
    let rows = |t: Tensor<2>, w: usize| -> Result<Array2<f32>, String> {
        let v = t.into_data().try_into_vec::<f32>().map_err(|e| format!("{e:?}"))?;
        Array2::from_shape_vec((n, w), v).map_err(|e| e.to_string())
    };
    // Built in memory, so that a failing disk fails the plain write, not the zip writer (whose drop complains).
    let write = || -> Result<(), Box<dyn std::error::Error>> {
        let mut npz = NpzWriter::new(Cursor::new(Vec::new()));
        npz.add_array("planes", &Array4::from_shape_vec((n, PLANES.len(), 8, 8), planes)?)?;
        npz.add_array("policy", &rows(out.policy, 65)?)?;
        npz.add_array("value", &rows(out.value, 1)?)?;
        npz.add_array("margin", &rows(out.margin, 1)?)?;
        npz.add_array("ownership", &rows(out.ownership, 64)?)?;
        write_atomic(path, &npz.finish()?.into_inner())?;
        Ok(())
    };
    write().map_err(|e| e.to_string())
}
