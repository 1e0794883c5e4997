//! The run directory, the one contract between the stages of training: self-play workers, the trainer and the
//! evaluation read and write only files in it, each written atomically, so that every stage can run as its own
//! process on its own machine against a shared directory.
//!
//! - [`RunDir`]: the layout (every path of a run is spelled there and nowhere else);
//! - [`atomic`]: whole-file writes by rename;
//! - [`config_check`]: the range checks each stage's section of `config.toml` makes;
//! - [`shard`]: the replay-shard format (writer and validating reader) and [`GameRecord`], a finished game with the
//!   training targets of each of its positions;
//! - [`tensorboard`]: TensorBoard's event files, which the trainer and the evaluation write in `RUN/logs`;
//! - [`lock`]: one process per role (`run`, the trainer, the evaluation, each self-play worker) in a run.
//!
//! The network and its checkpoints (`RUN/models`) are in `othello-net`.

pub mod atomic;
pub mod config_check;
pub mod fnv;
pub mod game_record;
pub mod lock;
pub mod run_dir;
pub mod shard;
pub mod tensorboard;

pub use atomic::{temp_path, write_atomic};
pub use fnv::{fnv1a, fnv1a_bytes};
pub use game_record::{GameRecord, PositionRecord};
pub use lock::{LockError, RoleLock};
pub use run_dir::RunDir;
pub use shard::{read_shards, Provenance, Shard, ShardError};
