//! A position: the discs of the side to move and of its opponent, and whose turn it is.

use std::fmt;

use crate::bitboard::Bitboard;
use crate::color::Color;
use crate::error::ParseError;
use crate::kernel;
use crate::square::Square;

/// Discs of the side to move (`player`) and of the other side (`opponent`), and the colour of the side to move.
/// Positions do not know the rules: [`crate::Rules`] says which moves are legal and when the game ends.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Position {
    pub player: Bitboard,
    pub opponent: Bitboard,
    pub side: Color,
}

impl Position {
    /// A position from the black and white discs (which must not overlap).
    pub fn from_colors(black: Bitboard, white: Bitboard, side: Color) -> Position {
        debug_assert!((black & white).is_empty());
        match side {
            Color::Black => Position { player: black, opponent: white, side },
            Color::White => Position { player: white, opponent: black, side },
        }
    }

    pub fn discs(&self, color: Color) -> Bitboard {
        if color == self.side {
            self.player
        } else {
            self.opponent
        }
    }
    pub fn black(&self) -> Bitboard {
        self.discs(Color::Black)
    }
    pub fn white(&self) -> Bitboard {
        self.discs(Color::White)
    }
    pub fn occupied(&self) -> Bitboard {
        self.player | self.opponent
    }
    /// What stands on `sq`.
    pub fn at(&self, sq: Square) -> Option<Color> {
        if self.player.contains(sq) {
            Some(self.side)
        } else if self.opponent.contains(sq) {
            Some(!self.side)
        } else {
            None
        }
    }

    /// Legal moves on the full 8x8 board under standard rules (see [`crate::Rules::legal_moves`] for variants).
    #[inline]
    pub fn moves(&self) -> Bitboard {
        Bitboard(kernel::moves(self.player.0, self.opponent.0))
    }
    /// Discs flipped by playing the empty square `sq`.
    #[inline]
    pub fn flips(&self, sq: Square) -> Bitboard {
        Bitboard(kernel::flips(self.player.0, self.opponent.0, sq.index() as u32))
    }

    /// Plays `sq`, flipping `flips`, and hands the turn over. No legality check.
    #[inline]
    pub fn play_with_flips(&self, sq: Square, flips: Bitboard) -> Position {
        Position {
            player: Bitboard(self.opponent.0 ^ flips.0),
            opponent: Bitboard(self.player.0 | flips.0 | sq.bit()),
            side: !self.side,
        }
    }
    /// Plays `sq` (flipping what it outflanks) and hands the turn over. No legality check.
    #[inline]
    pub fn play_unchecked(&self, sq: Square) -> Position {
        self.play_with_flips(sq, self.flips(sq))
    }
    /// The turn passes to the opponent.
    #[inline]
    pub fn pass(&self) -> Position {
        Position { player: self.opponent, opponent: self.player, side: !self.side }
    }

    /// A 64-bit hash of the discs (side to move as `player`), for transposition tables and evaluation caches.
    /// Positions with the same discs for mover and opponent get the same hash whatever the colours: that is what
    /// a search or a network sees. Two rounds of a 128-to-64-bit multiply-xorshift mix (no table to look up).
    #[inline]
    pub fn hash(&self) -> u64 {
        hash_discs(self.player.0, self.opponent.0)
    }

    /// Parses a board string: 64 (or 36, 16 for smaller boards) characters, row by row from a1, with `X`/`*`
    /// black, `O` white, `-`/`.` empty, then the side to move (`X`/`B`/`*` or `O`/`W`). White space and a final
    /// `;` (Edax) are ignored. Returns the position and the board size.
    pub fn parse_board(s: &str) -> Result<(Position, u8), ParseError> {
        let cells: Vec<char> = s.trim_end().trim_end_matches(';').chars().filter(|c| !c.is_whitespace()).collect();
        let size: u8 = match cells.len() {
            65 => 8,
            37 => 6,
            17 => 4,
            n => {
                // Count the squares apart from a final side to move, so that the message says how many there were.
                let side = cells.last().copied().filter(|c| "XxOoBbWw*".contains(*c));
                let squares = n - usize::from(side.is_some());
                return Err(match (n, side) {
                    (64 | 36 | 16, None) => ParseError::MissingSide { squares },
                    _ => ParseError::BoardLength { squares, side },
                });
            }
        };
        let n = size as usize * size as usize;
        let (mut black, mut white) = (0u64, 0u64);
        for (i, &c) in cells[..n].iter().enumerate() {
            let bit = 1u64 << ((i / size as usize) * 8 + i % size as usize);
            match c {
                'X' | 'x' | '*' | 'B' | 'b' => black |= bit,
                'O' | 'o' | 'W' | 'w' => white |= bit,
                '-' | '.' | '_' => {}
                ch => return Err(ParseError::BoardChar { ch, index: i }),
            }
        }
        let side = match cells[n] {
            'X' | 'x' | '*' | 'B' | 'b' => Color::Black,
            'O' | 'o' | 'W' | 'w' => Color::White,
            c => return Err(ParseError::BadSide(c.to_string())),
        };
        Ok((Position::from_colors(Bitboard(black), Bitboard(white), side), size))
    }

    /// The board string of a `size`x`size` board: `X` black, `O` white, `-` empty, a space, the side to move.
    pub fn to_board_string(&self, size: u8) -> String {
        let mut s = String::with_capacity(66);
        for row in 0..size {
            for col in 0..size {
                let sq = Square::at(col, row).expect("size <= 8");
                s.push(self.at(sq).map_or('-', Color::char));
            }
        }
        s.push(' ');
        s.push(self.side.char());
        s
    }

    /// A picture of the board with `marked` squares (e.g. the legal moves) shown as `*`.
    pub fn pretty(&self, size: u8, marked: Bitboard) -> String {
        let mut s = String::from("  ");
        for col in 0..size {
            s.push(' ');
            s.push((b'a' + col) as char);
        }
        s.push('\n');
        for row in 0..size {
            s.push_str(&format!("{:>2}", row + 1));
            for col in 0..size {
                let sq = Square::at(col, row).expect("size <= 8");
                s.push(' ');
                s.push(match self.at(sq) {
                    Some(c) => c.char(),
                    None if marked.contains(sq) => '*',
                    None => '.',
                });
            }
            s.push('\n');
        }
        s.push_str(&format!(
            "black (X) {}  white (O) {}  {} to move",
            self.black().count(),
            self.white().count(),
            self.side
        ));
        s
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_board_string(8))
    }
}

#[inline]
pub fn hash_discs(p: u64, o: u64) -> u64 {
    const K1: u64 = 0x9e37_79b9_7f4a_7c15;
    const K2: u64 = 0xc2b2_ae3d_27d4_eb4f;
    let a = (p ^ K1) as u128 * (o.rotate_left(29) ^ K2) as u128;
    let h = (a as u64) ^ ((a >> 64) as u64) ^ p.rotate_left(17) ^ o;
    let b = (h ^ K2) as u128 * (p ^ o.rotate_left(41) ^ K1) as u128;
    (b as u64) ^ ((b >> 64) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn board_strings_round_trip() {
        let s = "---------------------------OX------XO--------------------------- X";
        let (pos, size) = Position::parse_board(s).unwrap();
        assert_eq!(size, 8);
        assert_eq!(pos.to_board_string(8), s);
        assert_eq!(pos.black().count(), 2);
        assert_eq!(pos.side, Color::Black);
        // Edax style: '*' for black, no space before the side, trailing comment.
        let (p2, _) = Position::parse_board(&s.replace('X', "*").replace(' ', "")).unwrap();
        assert_eq!(p2, pos);
    }

    #[test]
    fn bad_board_strings_are_errors() {
        let good = "---------------------------OX------XO---------------------------";
        assert_eq!(Position::parse_board(good), Err(ParseError::MissingSide { squares: 64 }));
        let short = Position::parse_board(&format!("{} X", &good[3..])).unwrap_err();
        assert_eq!(short, ParseError::BoardLength { squares: 61, side: Some('X') });
        assert!(short.to_string().starts_with("board string has 61 squares and the side to move 'X', but"), "{short}");
        // 63 squares and a side, 65 and a side: the counts are the squares found.
        let sixty_three = Position::parse_board(&format!("{} X", &good[1..])).unwrap_err();
        assert_eq!(sixty_three, ParseError::BoardLength { squares: 63, side: Some('X') });
        let sixty_five = Position::parse_board(&format!("{good}- X")).unwrap_err();
        assert_eq!(sixty_five, ParseError::BoardLength { squares: 65, side: Some('X') });
        assert!(sixty_five.to_string().contains("a board has 64, 36 or 16"), "{sixty_five}");
        assert!(matches!(
            Position::parse_board(&format!("{}Z X", &good[1..])),
            Err(ParseError::BoardChar { ch: 'Z', index: 63 })
        ));
        assert!(matches!(Position::parse_board(&format!("{good} Q")), Err(ParseError::BadSide(_))));
        assert!(Position::parse_board("").is_err());
    }

    #[test]
    fn hash_has_no_collisions_on_a_million_positions() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(3);
        let mut seen = std::collections::HashSet::new();
        for _ in 0..1_000_000 {
            let occ: u64 = rng.random();
            let p = occ & rng.random::<u64>();
            seen.insert(hash_discs(p, occ & !p));
        }
        assert!(seen.len() > 999_990, "{} distinct hashes", seen.len());
        // Flipping one input bit changes about half of the output bits (avalanche).
        let mut changed = 0u64;
        for i in 0..10_000u64 {
            let (p, o) = (rng.random::<u64>(), rng.random::<u64>());
            changed += (hash_discs(p, o) ^ hash_discs(p ^ 1 << (i % 64), o)).count_ones() as u64;
        }
        let mean = changed as f64 / 10_000.0;
        assert!((30.0..34.0).contains(&mean), "mean flipped bits {mean}");
    }
}
