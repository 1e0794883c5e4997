//! A pattern evaluation: the expected final disc difference of a position for the side to move, as a sum of one
//! weight per board region (46 edges, corners, lines and diagonals, the patterns of Logistello and Edax), one weight
//! set per phase (a band of empties).
//!
//! The weights are fitted on the WTHOR database by [`fit`] (`othello-zero fit-eval`) and ship with the crate
//! (`weights.bin`, format in [`PatternWeights::from_bytes`]). The solver orders its moves with it, carrying a
//! [`PatternState`] that each move updates rather than reading the patterns anew.

mod compact;
mod features;
pub mod fit;
pub mod label;
mod state;
mod weights;

pub use compact::CompactWeights;
pub use features::{cells, features, features_with, Lanes, PatternKind, FEATURES, KINDS, WEIGHTS_PER_PHASE};
pub use state::PatternState;
pub use weights::{PatternWeights, WeightsError};

/// Weights are stored in units of 1/SCALE disc.
pub const SCALE: i32 = 32;
/// A phase is a band of this many empties.
pub const PHASE_WIDTH: u32 = 4;
/// Phases 0..PHASES cover 0 to 63 empties.
pub const PHASES: usize = 16;

/// The phase of a position with `empties` empty squares.
#[inline(always)]
pub fn phase(empties: u32) -> usize {
    (empties / PHASE_WIDTH).min(PHASES as u32 - 1) as usize
}

/// The phase of an 8x8 position.
#[inline(always)]
pub fn position_phase(p: u64, o: u64) -> usize {
    phase(64 - (p | o).count_ones())
}
