//! Agents (players), and ways to measure them: baseline agents, the perfect-endgame wrapper, and the
//! exact-solver oracle over positions from real games.

pub mod agent;
pub mod endgame_oracle;

pub use agent::{agent_from_spec, Agent, AgentError, EndgameAgent, GreedyAgent, RandomAgent};
pub use endgame_oracle::{oracle_positions, OracleReport};
