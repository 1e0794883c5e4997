//! The network, as every stage sees it: the input planes of a position (`othello_core::planes`, re-exported), the
//! residual network and its heads ([`network`]), one forward pass over positions mapped back through their
//! symmetries ([`predict`]; on the CPU through the network with its batch norms folded, [`folded`]), checkpoints
//! with their sidecar in `RUN/models` ([`checkpoint`]), the mean of several checkpoints ([`average`]), and the Burn
//! device a stage runs on ([`device`]).

pub mod average;
pub mod checkpoint;
pub mod device;
pub mod folded;
mod matmul;
pub mod network;
pub mod predict;
#[cfg(test)]
mod testing;

pub use average::average_checkpoints;
pub use checkpoint::{
    best_checkpoint, checkpoints_dir, list_checkpoints, load_checkpoint, newest_checkpoint, read_info,
    resolve_checkpoint, save_checkpoint, selfplay_checkpoint, set_best_checkpoint, CheckpointError, CheckpointInfo,
    TrainingInfo,
};
pub use device::{DeviceChoice, DeviceError};
pub use network::{NetConfig, Network, Output};
pub use othello_core::planes::{encode, PLANES};
pub use predict::{predict, Prediction, Predictor};
