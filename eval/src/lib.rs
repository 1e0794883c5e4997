//! Agents (players), and ways to measure them: baseline agents (random, greedy, a positional alpha-beta, pure
//! MCTS with random rollouts), the
//! perfect-endgame wrapper, the exact-solver oracle over positions from real games, Bradley-Terry Elo ratings with
//! intervals, and the sequential probability ratio test.

pub mod agent;
pub mod arena;
pub mod endgame_oracle;
pub mod positional;
pub mod ratings;
pub mod rollout_mcts;
pub mod sprt;

pub use agent::{agent_from_spec, Agent, AgentError, EndgameAgent, GreedyAgent, RandomAgent};
pub use endgame_oracle::{oracle_positions, OracleReport};
pub use positional::PositionalAgent;
pub use rollout_mcts::RolloutMctsAgent;
