//! Agents (players), and ways to measure them. So far: baseline agents, the perfect-endgame wrapper, and the
//! exact-solver oracle over positions from real games.

pub mod agent;
pub mod oracle;

pub use agent::{agent_from_spec, Agent, AgentError, EndgameAgent, GreedyAgent, RandomAgent};
pub use oracle::{oracle_positions, OracleReport};
