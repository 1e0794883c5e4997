//! Self-play: Monte-Carlo tree search (PUCT and Gumbel, batched across games) with pluggable leaf evaluators
//! (the network, random rollouts, uniform), the games it plays, and the worker that writes them to a run's replay
//! directory as shards.

pub mod evaluator;
pub mod mcts;
pub mod net_evaluator;
pub mod play;
pub mod worker;

pub use evaluator::{Evaluation, Evaluator, RolloutEvaluator, UniformEvaluator};
pub use mcts::{InteriorSelection, MctsConfig, Select, Tree};
pub use play::{play_game, LeafEvaluator, RootSelection, SelfPlayConfig, MAX_SIMULATIONS};
