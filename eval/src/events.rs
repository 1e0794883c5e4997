//! What the arena's matches and the evaluation stage report as they go: the command line prints these, as it
//! prints the trainer's events.

use std::path::Path;

use crate::optimal_moves::{OptimalMovesReport, OptimalMovesRow};
use crate::ratings::Ratings;
use crate::sprt::Sprt;
use othello_players::AgentSpec;

/// One thing that happened.
#[derive(Debug)]
pub enum Event<'a> {
    /// A match is about to play: `total` games scheduled, `to_play` of them not yet stored in `results`.
    Scheduled { total: usize, to_play: usize, threads: usize, results: &'a Path },
    /// Games are ending (every few seconds): the standings over every stored game.
    Games { done: usize, total: usize, per_second: f64, standings: Option<&'a Ratings<AgentSpec>> },
    /// The match's games are all played.
    GamesDone { played: usize, seconds: f64 },
    /// Ratings fitted and stored; the checkpoints' picture drawn where given.
    Rated { ratings: &'a Ratings<AgentSpec>, picture: Option<&'a Path> },
    /// A sequential test's progress.
    SprtPairs { pairs: u64, pentanomial: [u64; 5], llr: f64, test: &'a Sprt },
    /// A sequential test's decision, in words.
    SprtDecided { verdict: &'a str },
    /// A checkpoint's gauntlet plays its next round, against these players.
    Against { player: &'a AgentSpec, opponents: &'a [&'a AgentSpec] },
    /// The final player (the newest checkpoint with a larger search) is rated.
    FinalPlayer { player: &'a AgentSpec },
    /// Gating: the first checkpoint is the first best, or a checkpoint passed its test and is the new best.
    Promoted { model: &'a Path, first: bool },
    /// A checkpoint on the run's curve has its Elo (for TensorBoard, at its step).
    CheckpointElo { step: u64, elo: f64, interval95: f64 },
    /// Positions solved exactly before players are asked: `done` of `total` (`done` 0 at the start).
    Solving { done: usize, total: usize, threads: usize },
    /// Players put to fixed positions: `done` of `total` answers.
    Asking { players: usize, positions: usize, done: usize, total: usize },
    /// A player that could not answer the positions is left out.
    LeftOut { player: &'a AgentSpec, why: String },
    /// A player's record against the solver; `step` where the player is a checkpoint on the run's curve.
    OptimalMoves { player: &'a AgentSpec, report: &'a OptimalMovesReport, step: Option<u64> },
    /// Every player's record against the solver, `counted` moves or positions with at most `max_empties` empties.
    EveryPlayer { records: &'a [OptimalMovesRow], counted: &'a str, max_empties: u32 },
    /// Where results were stored, in words.
    Stored { what: String },
    /// Something was wrong but the work goes on (a stored file that does not read is redone).
    Warning { message: String },
}
