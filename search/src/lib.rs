//! Monte-Carlo tree search for Othello, used by self-play and by the `net:` player alike: AlphaZero's PUCT or
//! Gumbel's choices at the root ([`GumbelSearch`], sequential halving) and below it, score-bounded so that a
//! searched endgame plays exactly, driven leaf by leaf so that the leaves of many trees share one evaluator call.
//!
//! One concept a file, as DeepMind's mctx splits its search: the tree and its walks (`tree`), PUCT's and Gumbel's
//! child choice (`puct`, `gumbel`), sequential halving (`halving`), the value transform (`value`), proven bounds
//! (`bounds`), policy targets and the move (`policy`), the settings (`config`), and what evaluates a leaf
//! (`evaluator`, `net_evaluator`).

mod bounds;
pub mod config;
pub mod evaluator;
mod gumbel;
mod halving;
pub mod net_evaluator;
mod policy;
mod puct;
#[cfg(test)]
mod testing;
mod tree;
mod value;

pub use config::{
    InteriorSelection, MctsConfig, PlayerSearch, RootSelection, UnknownInteriorSelection, MAX_SIMULATIONS,
};
pub use evaluator::{Evaluation, Evaluator, RolloutEvaluator, UniformEvaluator};
pub use halving::GumbelSearch;
pub use net_evaluator::NetworkEvaluator;
pub use tree::{Leaf, SearchJob, Select, Tree};
