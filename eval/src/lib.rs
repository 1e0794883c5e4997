//! Measuring players (`othello-players`): the arena (schedules, games, the directory that stores them), balanced
//! openings, Bradley-Terry Elo ratings with intervals and their pictures, the sequential probability ratio test,
//! optimal moves (players' moves against the exact solver, in their games or on positions from real games), and
//! the evaluation stage that rates a run's checkpoints.

pub mod arena;
pub mod events;
pub mod matches;
pub mod openings;
pub mod optimal_moves;
pub mod ratings;
pub mod ratings_plot;
pub mod sprt;
pub mod stage;

pub use optimal_moves::{wthor_positions, OptimalMovesReport};
