//! A square of the board: `a1` is bit 0 (top-left), `h8` is bit 63; columns a-h, rows 1-8 top to bottom.

use std::fmt;
use std::str::FromStr;

use crate::error::ParseError;

/// One of the 64 squares. Smaller boards use the top-left corner of the same layout.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Square(u8);

impl Square {
    /// The square with bit index `index` (0..64).
    pub const fn new(index: u8) -> Option<Square> {
        if index < 64 {
            Some(Square(index))
        } else {
            None
        }
    }

    /// The square at `col` (0 = a) and `row` (0 = row 1).
    pub const fn at(col: u8, row: u8) -> Option<Square> {
        if col < 8 && row < 8 {
            Some(Square(row * 8 + col))
        } else {
            None
        }
    }

    /// The square of a bit scan of a non-empty board: callers guarantee `index < 64`.
    pub(crate) const fn from_index_unchecked(index: u32) -> Square {
        debug_assert!(index < 64);
        Square(index as u8)
    }

    pub const fn index(self) -> usize {
        self.0 as usize
    }
    pub const fn col(self) -> u8 {
        self.0 & 7
    }
    pub const fn row(self) -> u8 {
        self.0 >> 3
    }
    pub const fn bit(self) -> u64 {
        1u64 << self.0
    }

    /// All 64 squares in index order.
    pub fn all() -> impl Iterator<Item = Square> {
        (0..64).map(Square)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.col()) as char, self.row() + 1)
    }
}

impl FromStr for Square {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Square, ParseError> {
        let b = s.as_bytes();
        if b.len() == 2 {
            let col = b[0].to_ascii_lowercase().wrapping_sub(b'a');
            let row = b[1].wrapping_sub(b'1');
            if let Some(sq) = Square::at(col, row) {
                return Ok(sq);
            }
        }
        Err(ParseError::BadSquare(s.chars().take(16).collect()))
    }
}

/// A move: a square, or a pass.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Move {
    Play(Square),
    Pass,
}

/// The length of a policy vector: the 64 squares in bitboard order, then the pass (smaller boards leave their
/// squares outside the board at zero).
pub const POLICY_SIZE: usize = 65;

impl Move {
    /// The move's index in a policy vector of [`POLICY_SIZE`] entries: the square's bit index, 64 for the pass.
    pub fn policy_index(self) -> usize {
        match self {
            Move::Play(sq) => sq.index(),
            Move::Pass => 64,
        }
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Move::Play(sq) => sq.fmt(f),
            Move::Pass => f.write_str("pass"),
        }
    }
}

impl FromStr for Move {
    type Err = ParseError;
    /// `a1`..`h8` in either case, or `pass` / `pa` / `ps` / `--` for a pass.
    fn from_str(s: &str) -> Result<Move, ParseError> {
        if s.eq_ignore_ascii_case("pass") || s.eq_ignore_ascii_case("pa") || s.eq_ignore_ascii_case("ps") || s == "--" {
            return Ok(Move::Pass);
        }
        s.parse().map(Move::Play)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_follow_the_layout() {
        assert_eq!(Square::new(0).unwrap().to_string(), "a1");
        assert_eq!(Square::new(7).unwrap().to_string(), "h1");
        assert_eq!(Square::new(8).unwrap().to_string(), "a2");
        assert_eq!(Square::new(63).unwrap().to_string(), "h8");
        for sq in Square::all() {
            assert_eq!(sq.to_string().parse::<Square>().unwrap(), sq);
            assert_eq!(sq.to_string().to_uppercase().parse::<Square>().unwrap(), sq);
        }
    }

    #[test]
    fn bad_squares_are_errors() {
        for bad in ["", "a", "a0", "a9", "i1", "11", "a10", "é1", "pass"] {
            assert!(bad.parse::<Square>().is_err(), "{bad}");
        }
        assert_eq!("PA".parse::<Move>().unwrap(), Move::Pass);
        assert_eq!("pass".parse::<Move>().unwrap(), Move::Pass);
    }
}
