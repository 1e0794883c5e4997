//! Self-play: Monte-Carlo tree search with pluggable evaluators (random rollouts, uniform; the network arrives
//! with issue #4), and the games it plays.

pub mod atomic;
pub mod device;
pub mod evaluator;
pub mod game;
pub mod mcts;
pub mod model;
pub mod net_evaluator;
pub mod network;
pub mod shard;
pub mod worker;

pub use evaluator::{Evaluation, Evaluator, RolloutEvaluator, UniformEvaluator, POLICY_SIZE};
pub use game::{play_game, GameRecord, PositionRecord, SelfPlayConfig};
pub use mcts::{MctsConfig, Select, Tree};
