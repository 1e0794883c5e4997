//! Othello rules on bitboards: SIMD move generation and flips, rule variants, notation and file formats
//! (transcripts, board strings, GGF, WTHOR), symmetries, hashing and perft.
//!
//! One concept per module: [`Bitboard`], [`Square`], [`Color`], [`Position`], [`Rules`], [`Game`],
//! [`Symmetry`]; the hot kernels live in [`kernel`].

pub mod bitboard;
pub mod color;
pub mod error;
#[doc(hidden)]
pub mod fuzz_checks;
pub mod game;
pub mod ggf;
pub mod kernel;
pub(crate) mod last_flip;
pub mod pattern;
pub mod perft;
pub mod planes;
pub mod playout;
pub mod position;
pub mod problem;
pub mod rules;
pub mod solve;
pub mod square;
pub mod stability;
pub mod symmetry;
pub(crate) mod transposition;
pub mod wthor;

pub use bitboard::Bitboard;
pub use color::Color;
pub use error::{clip, GameError, IllegalMove, ParseError, PositionTextError};
pub use game::{parse_transcript, Game};
pub use kernel::KernelKind;
pub use perft::{perft, Convention};
pub use position::Position;
pub use rules::{Objective, Outcome, Rules, Scoring, Start, Status};
pub use square::{Move, Square, POLICY_SIZE};
pub use symmetry::Symmetry;
