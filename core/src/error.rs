//! Errors of the core crate. Every parser error says what was wrong and where (line, move number, byte).

use thiserror::Error;

/// A malformed square, move, board string or transcript.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum ParseError {
    #[error("bad square '{0}' (expected a1..h8)")]
    BadSquare(String),
    #[error("bad move token '{token}' at character {at} (expected a square a1..h8 or 'pass')")]
    BadMoveToken { token: String, at: usize },
    #[error("board string has {found} characters, expected 64 (or 36, 16) squares and the side to move")]
    BoardLength { found: usize },
    #[error("bad character '{ch}' at square {index} of the board string (expected X/* black, O white, -/. empty)")]
    BoardChar { ch: char, index: usize },
    #[error("bad side to move '{0}' (expected X/B/* for black or O/W for white)")]
    BadSide(String),
    #[error("board string is missing the side to move")]
    MissingSide,
    #[error("unknown {what} '{value}' (expected one of: {expected})")]
    UnknownName { what: &'static str, value: String, expected: &'static str },
    #[error("bad score '{0}' (expected a disc difference such as +6 or -2, written <move>:<score> in .obf)")]
    BadScore(String),
    #[error("discs outside the {size}x{size} board")]
    OffBoard { size: u8 },
}

/// A move that the rules do not allow in the position.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum IllegalMove {
    #[error("{mv} is not a legal move for {side}{}", legal_hint(.legal))]
    NotLegal { mv: String, side: crate::Color, legal: String },
    #[error("{side} may not pass: it has legal moves ({legal})")]
    PassWithMoves { side: crate::Color, legal: String },
    #[error("the game is already over")]
    GameOver,
}

fn legal_hint(legal: &str) -> String {
    if legal.is_empty() {
        String::new()
    } else {
        format!(" (legal: {legal})")
    }
}

/// A transcript that does not replay: the move number (1-based, passes included) and the reason.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum GameError {
    #[error(transparent)]
    Parse(#[from] ParseError),
    #[error("move {number} ({mv}): {error}")]
    Illegal { number: usize, mv: String, error: IllegalMove },
}
