//! Training and export: the trainer over the replay window of a run directory (checkpoints, TensorBoard), the
//! WTHOR importer that turns expert games into replay shards, and the exporters for other frontends
//! (safetensors with a model card, ONNX).

pub mod agreement;
pub mod batch;
pub mod export;
pub mod import;
pub mod log;
pub mod loss;
pub mod onnx;
pub mod plot;
pub mod throughput;
pub mod train_config;
pub mod trainer;
pub mod window;

pub use log::LogLine;
pub use train_config::{Decay, Optimizer, TrainConfig};
pub use trainer::{Event, Stop, TrainError, TrainOptions, Trainer};
