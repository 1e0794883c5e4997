//! Errors of the core crate. Every parser error says what was wrong and where (line, move number, byte).

use thiserror::Error;

/// At most `chars` characters of someone else's text (a token, a line, an argument), for a message: a huge input
/// is not repeated whole.
pub fn clip(text: &str, chars: usize) -> String {
    match text.char_indices().nth(chars) {
        Some((end, _)) => format!("{}...", &text[..end]),
        None => text.to_string(),
    }
}

/// A malformed square, move, board string or transcript.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum ParseError {
    #[error("bad square '{0}' (expected a1..h8)")]
    BadSquare(String),
    #[error("bad move token '{token}' at character {at} (expected a square a1..h8 or 'pass')")]
    BadMoveToken { token: String, at: usize },
    #[error("board string has {squares} squares{}, but a board has 64, 36 or 16 (8x8, 6x6, 4x4), then the side to move", side_hint(.side))]
    BoardLength { squares: usize, side: Option<char> },
    #[error("bad character '{ch}' at square {index} of the board string (expected X/* black, O white, -/. empty)")]
    BoardChar { ch: char, index: usize },
    #[error("bad side to move '{0}' (expected X/B/* for black or O/W for white)")]
    BadSide(String),
    #[error("board string has {squares} squares but no side to move after them (X or O)")]
    MissingSide { squares: usize },
    #[error("the board has {found} squares ({size}x{size}) but the rules want {wanted} ({rules_size}x{rules_size})", found = .size * .size, wanted = .rules_size * .rules_size)]
    BoardSize { size: u8, rules_size: u8 },
    #[error("unknown {what} '{value}' (expected one of: {expected})")]
    UnknownName { what: &'static str, value: String, expected: &'static str },
    #[error("bad score '{0}' (expected a disc difference such as +6 or -2, written <move>:<score> in .obf)")]
    BadScore(String),
    #[error("rules '{first}' and '{second}' contradict each other")]
    RulesContradict { first: String, second: String },
    #[error("the preset '{0}' must come first in a rule list (it would undo the rules before it)")]
    PresetNotFirst(String),
    #[error("no rules given (expected a comma-separated list such as 'othello' or 'othello,6x6')")]
    NoRules,
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

fn side_hint(side: &Option<char>) -> String {
    side.map_or(String::new(), |c| format!(" and the side to move '{c}'"))
}

fn legal_hint(legal: &str) -> String {
    if legal.is_empty() {
        String::new()
    } else {
        format!(" (legal: {legal})")
    }
}

/// A position given as text (a command's argument, a Python `Position`) that is neither reading of it.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum PositionTextError {
    /// A board string, but not one of the rules asked for.
    #[error(transparent)]
    Board(ParseError),
    /// Both readings failed: why for each, since either may be the one meant (the text clipped).
    #[error("'{text}' is neither a board string ({board}) nor a legal transcript ({transcript})")]
    Neither { text: String, board: Box<ParseError>, transcript: Box<GameError> },
}

/// A transcript that does not replay: the move number (1-based, passes included) and the reason.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum GameError {
    #[error(transparent)]
    Parse(#[from] ParseError),
    #[error("move {number} ({mv}): {error}")]
    Illegal { number: usize, mv: String, error: IllegalMove },
}
