//! A set of squares as a `u64` (bit i = square i).

use std::fmt;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not};

use crate::square::Square;

#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Bitboard(pub u64);

impl Bitboard {
    pub const EMPTY: Bitboard = Bitboard(0);
    pub const FULL: Bitboard = Bitboard(!0);

    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }
    pub const fn any(self) -> bool {
        self.0 != 0
    }
    pub const fn contains(self, sq: Square) -> bool {
        self.0 & sq.bit() != 0
    }
    pub const fn with(self, sq: Square) -> Bitboard {
        Bitboard(self.0 | sq.bit())
    }
    pub const fn without(self, sq: Square) -> Bitboard {
        Bitboard(self.0 & !sq.bit())
    }
    /// The lowest square, if any.
    pub const fn first(self) -> Option<Square> {
        if self.0 == 0 {
            None
        } else {
            Some(Square::from_index_unchecked(self.0.trailing_zeros()))
        }
    }
    /// The `n`-th square in index order (0-based), if there are more than `n`.
    pub fn nth(self, n: u32) -> Option<Square> {
        let mut b = self.0;
        for _ in 0..n {
            b &= b.wrapping_sub(1);
        }
        Bitboard(b).first()
    }
    /// Its squares in index order, separated by spaces (`d3 c4 f5 e6`): a list of moves as a person reads it.
    pub fn square_list(self) -> String {
        self.map(|s| s.to_string()).collect::<Vec<_>>().join(" ")
    }
}

impl From<Square> for Bitboard {
    fn from(sq: Square) -> Bitboard {
        Bitboard(sq.bit())
    }
}

impl Iterator for Bitboard {
    type Item = Square;
    #[inline]
    fn next(&mut self) -> Option<Square> {
        let sq = self.first()?;
        self.0 &= self.0 - 1;
        Some(sq)
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.count() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Bitboard {}

macro_rules! bit_op {
    ($trait:ident, $fn:ident, $atrait:ident, $afn:ident, $op:tt) => {
        impl $trait for Bitboard {
            type Output = Bitboard;
            #[inline]
            fn $fn(self, rhs: Bitboard) -> Bitboard {
                Bitboard(self.0 $op rhs.0)
            }
        }
        impl $atrait for Bitboard {
            #[inline]
            fn $afn(&mut self, rhs: Bitboard) {
                self.0 = self.0 $op rhs.0;
            }
        }
    };
}
bit_op!(BitAnd, bitand, BitAndAssign, bitand_assign, &);
bit_op!(BitOr, bitor, BitOrAssign, bitor_assign, |);
bit_op!(BitXor, bitxor, BitXorAssign, bitxor_assign, ^);

impl Not for Bitboard {
    type Output = Bitboard;
    fn not(self) -> Bitboard {
        Bitboard(!self.0)
    }
}

impl fmt::Debug for Bitboard {
    /// Eight rows of `x` (set) and `.` (clear), row 1 first.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "Bitboard({:#018x})", self.0)?;
        for row in 0..8 {
            for col in 0..8 {
                let set = self.0 >> (row * 8 + col) & 1 == 1;
                f.write_str(if set { "x" } else { "." })?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iterates_its_squares_in_order() {
        let b = Bitboard(0x8000_0000_0000_0101);
        let names: Vec<String> = b.map(|s| s.to_string()).collect();
        assert_eq!(names, ["a1", "a2", "h8"]);
        assert_eq!(b.len(), 3);
        assert_eq!(b.nth(1).unwrap().to_string(), "a2");
        assert_eq!(b.nth(3), None);
        assert_eq!(b.square_list(), "a1 a2 h8");
        assert_eq!(Bitboard::EMPTY.square_list(), "");
    }
}
