//! Self-play: the games the search plays against itself, with the training targets of every position, and the
//! worker that writes them to a run's replay directory as shards.

pub mod play;
pub mod worker;

pub use play::{play_game, LeafEvaluator, SelfPlayConfig};
