//! The network, as every stage sees it: the input planes of a position ([`planes`]), the residual network and its
//! heads ([`network`]), one forward pass over positions mapped back through their symmetries ([`predict`]; on the
//! CPU through the network with its batch norms folded, [`folded`]), checkpoints with their sidecar in
//! `RUN/models` ([`checkpoint`]), the mean of several checkpoints ([`average`]), and the Burn device a stage runs on
//! ([`device`]).

pub mod average;
pub mod checkpoint;
pub mod device;
pub mod folded;
mod matmul;
pub mod network;
pub mod planes;
pub mod predict;
#[cfg(test)]
mod testing;

pub use average::average_checkpoints;
pub use checkpoint::{
    best_model, list_models, load_model, models_dir, newest_model, read_info, resolve_model, save_model,
    selfplay_model, set_best_model, ModelError, ModelInfo, TrainingInfo,
};
pub use device::{DeviceChoice, DeviceError};
pub use network::{NetConfig, Network, Output};
pub use planes::{encode, PLANES};
pub use predict::{predict, Prediction, Predictor};
