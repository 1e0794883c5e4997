//! Every kind of player: the agent spec that names one (`spec/`), the `Agent` trait, the baselines (random,
//! greedy, a positional alpha-beta, pure MCTS with random rollouts, any of them with a perfect endgame), the pattern
//! engine, trained networks (raw policy, or with their search), external engines over NBoard and GTP, and our
//! agents served as such engines or playing a person, and players the host process supplies (Python callables). Measuring them is `othello-eval`'s.

pub mod agent;
pub mod baselines;
pub mod engine;
#[doc(hidden)]
pub mod fuzz_checks;
pub mod gtp;
pub mod hosted;
pub mod human_play;
pub mod nboard;
pub mod network_agent;
pub mod pattern_engine;
pub mod positional;
pub mod rollout_mcts;
pub mod serve;
pub mod spec;
pub mod thinking_time;

pub use agent::{Agent, AgentError};
pub use baselines::{EndgameAgent, GreedyAgent, RandomAgent};
pub use pattern_engine::PatternEngine;
pub use positional::PositionalAgent;
pub use rollout_mcts::RolloutMctsAgent;
pub use spec::{AgentKind, AgentSpec, NetSearch, PatternBudget, SpecError, TimeControl, MAX_SCORE_UTILITY};
