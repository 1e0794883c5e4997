//! Export for other frontends: a checkpoint's weights as safetensors (PyTorch layout) and as ONNX, a model card
//! (JSON) that says what goes in and what comes out, and the examples: positions (with the moves that reach them),
//! their input planes and this crate's outputs, as `examples.npz` and `examples.json`, so that any loader and any
//! encoder can check itself (python/check_export.py and web/test/ do).

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
use othello_net::{encode, load_checkpoint, CheckpointInfo, Network, PLANES};
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
    pub examples_json: PathBuf,
}

/// Positions in the examples.
pub const EXAMPLES: usize = 64;

/// Exports the model at `model` (its `.json` or `.bpk`) into `out`.
pub fn export(model: &Path, out: &Path) -> Result<Exported, ExportError> {
    let device = Device::flex();
    let (net, info) = load_checkpoint(model, None, &device)
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
    let examples_json = out.join("examples.json");
    write_examples(&net, &device, &rules, &examples, &examples_json).map_err(|e| fail(out, e))?;
    Ok(Exported { safetensors, onnx, card: card_path, examples, examples_json })
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

/// How the stable-disc planes are computed, in words enough to write them again (web/src/planes.js does).
const STABLE_DISCS: &str = "8x8 only (zeros on smaller boards). A subset of the discs no sequence of moves can flip, \
computed for each colour as follows. 1. Edges: for each of the four edges as a line of 8 squares, a disc of the \
colour is stable if no sequence of placements on that line by either side (each flipping as in Othello, along the \
line only) can flip it; computed exhaustively over the 3^8 line states, from fuller lines to emptier ones. 2. Grow to \
a fixed point: a disc of the colour off the edges is stable if, along each of the four axes (row, column, both \
diagonals), its whole line from edge to edge is occupied or one of its two neighbours on that axis is a stable disc \
of its colour.";

/// The rules string's grammar, as `Rules` parses it.
const RULES_GRAMMAR: &str = "comma-separated: a preset first (othello, or traditional/reversi: empty centre filled \
by the first four moves without flips, white first, no passing), then a size 4x4/6x6/8x8, reverse (fewest discs \
win), empties (empties go to the winner), a start (mirror: d4/e5 black; empty-start; start=BOARD), white-first or \
black-first, pass or no-pass (no-pass: the game ends when the side to move cannot move). Othello starts with d4/e5 \
white, d5/e4 black (the same pattern in a smaller board's centre), black to move.";

fn model_card(info: &CheckpointInfo, rules: &Rules, weights: &Weights, source: &Path) -> serde_json::Value {
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
            "square_names": "column letter a-h left to right, then row number 1-8 top to bottom: index 8 * (row - 1) + column; a board smaller than 8x8 is the top-left corner (6x6: a1-f6), the other squares stay 0 in every plane but none",
            "values": "1.0 where the plane's condition holds on a square, else 0.0",
            "stable_discs": STABLE_DISCS,
            "planes": planes
        },
        "moves": {
            "policy_index": "a square's input index (0-63); 64 is the pass",
            "pass_index": 64,
            "transcript": "squares as names (f5d6c3...), a pass as `pass`; a forced pass may also be left out",
            "rules": RULES_GRAMMAR
        },
        "onnx": {
            "file": "model.onnx",
            "opset": 17,
            "inputs": {"planes": ["batch", a.input_planes, 8, 8]},
            "outputs": {"policy": ["batch", 65], "value": ["batch", 1], "margin": ["batch", 1], "ownership": ["batch", 64]}
        },
        "outputs": {
            "policy": {"shape": ["batch", 65], "meaning": "logits over the 64 squares (input order) then the pass; softmax over the legal moves only"},
            "value": {"shape": ["batch", 1], "meaning": "expected result for the side to move, -1 (loss) to 1 (win), tanh; win probability (1 + value) / 2 with draws as half"},
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
            "examples": "examples.npz: planes, policy, value, margin, ownership of sample positions, as computed by othello-zero",
            "examples_json": "examples.json: the same positions with the moves that reach them (from the rules' start) and their board strings, for languages without numpy"
        },
        "tensors": tensors,
    })
}

/// Positions from seeded random games (the start included), encoded, with the network's outputs: `examples.npz`
/// and `examples.json`.
fn write_examples(
    net: &Network,
    device: &Device,
    rules: &Rules,
    npz_path: &Path,
    json_path: &Path,
) -> Result<(), String> {
    let mut rng = game_rng(0x5eed, 0);
    // Each position with the moves from the start that reach it.
    let mut positions: Vec<(Position, Vec<String>)> = vec![];
    let (mut pos, mut moves) = (rules.start_position(), vec![]);
    while positions.len() < EXAMPLES {
        positions.push((pos, moves.clone()));
        let legal = rules.legal_moves(&pos);
        if legal.is_empty() {
            if rules.is_over(&pos) {
                (pos, moves) = (rules.start_position(), vec![]);
            } else {
                pos = pos.pass();
                moves.push("pass".to_string());
            }
            continue;
        }
        let k = rng.random_range(0..legal.count());
        let sq = legal.into_iter().nth(k).ok_or("a legal move")?;
        pos = rules.play_legal(&pos, sq);
        moves.push(sq.to_string());
    }
    let mut planes = vec![];
    for (p, _) in &positions {
        encode(rules, p, Symmetry::IDENTITY, &mut planes);
    }
    let n = positions.len();
    let input = Tensor::<4>::from_data(TensorData::new(planes.clone(), [n, PLANES.len(), 8, 8]), device);
    let out = net.forward(input);
    let rows = |t: Tensor<2>, w: usize| -> Result<Array2<f32>, String> {
        let v = t.into_data().try_into_vec::<f32>().map_err(|e| format!("{e:?}"))?;
        Array2::from_shape_vec((n, w), v).map_err(|e| e.to_string())
    };
    let (policy, value, margin, ownership) =
        (rows(out.policy, 65)?, rows(out.value, 1)?, rows(out.margin, 1)?, rows(out.ownership, 64)?);
    let plane_size = PLANES.len() * 64;
    let examples: Vec<_> = positions
        .iter()
        .enumerate()
        .map(|(i, (p, moves))| {
            json!({
                "moves": moves.join(" "),
                "board": p.to_board_string(rules.size),
                "planes": planes[i * plane_size..(i + 1) * plane_size].iter().map(|&x| x as u8).collect::<Vec<_>>(),
                "policy": policy.row(i).to_vec(),
                "value": value[[i, 0]],
                "margin": margin[[i, 0]],
                "ownership": ownership.row(i).to_vec(),
            })
        })
        .collect();
    let document = json!({
        "rules": rules.to_string(),
        "about": "inputs (planes: 6x8x8 in input order, flattened) and othello-zero's outputs for positions reached by the moves from the rules' start",
        "examples": examples,
    });
    let text = serde_json::to_string(&document).map_err(|e| e.to_string())?;
    write_atomic(json_path, text.as_bytes()).map_err(|e| format!("{}: {e}", json_path.display()))?;
    // Built in memory, so that a failing disk fails the plain write, not the zip writer (whose drop complains).
    let write = || -> Result<(), Box<dyn std::error::Error>> {
        let mut npz = NpzWriter::new(Cursor::new(Vec::new()));
        npz.add_array("planes", &Array4::from_shape_vec((n, PLANES.len(), 8, 8), planes)?)?;
        npz.add_array("policy", &policy)?;
        npz.add_array("value", &value)?;
        npz.add_array("margin", &margin)?;
        npz.add_array("ownership", &ownership)?;
        write_atomic(npz_path, &npz.finish()?.into_inner())?;
        Ok(())
    };
    write().map_err(|e| format!("{}: {e}", npz_path.display()))
}
