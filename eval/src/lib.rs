//! Agents (players), and ways to measure them: baseline agents (random, greedy, a positional alpha-beta, pure
//! MCTS with random rollouts), the pattern engine, trained networks (raw policy, or with MCTS), external engines
//! (NBoard, GTP) and our agents served as such engines, the perfect-endgame wrapper; the arena, optimal moves
//! (players' moves against the exact solver, in their games or on positions from real games), Bradley-Terry Elo
//! ratings with intervals, and the sequential probability ratio test.

pub mod agent;
pub mod arena;
pub mod baselines;
pub mod engine;
pub mod events;
#[doc(hidden)]
pub mod fuzz_checks;
pub mod gtp;
pub mod human_play;
pub mod matches;
pub mod nboard;
pub mod network_agent;
pub mod openings;
pub mod optimal_moves;
pub mod pattern_engine;
pub mod positional;
pub mod ratings;
pub mod ratings_plot;
pub mod rollout_mcts;
pub mod serve;
pub mod spec;
pub mod sprt;
pub mod stage;

pub use agent::{Agent, AgentError};
pub use baselines::{EndgameAgent, GreedyAgent, RandomAgent};
pub use optimal_moves::{wthor_positions, OptimalMovesReport};
pub use pattern_engine::PatternEngine;
pub use positional::PositionalAgent;
pub use rollout_mcts::RolloutMctsAgent;
pub use spec::{AgentKind, AgentSpec, PatternBudget, SpecError, MAX_SCORE_UTILITY};
