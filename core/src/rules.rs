//! Rule variants, chosen by one `Rules` value: board size, start position, passing, scoring and objective.
//! One code path serves them all: the variants only change masks, the start, and how a finished game is scored.

use std::fmt;
use std::str::FromStr;

use crate::bitboard::Bitboard;
use crate::color::Color;
use crate::error::{IllegalMove, ParseError};
use crate::kernel;
use crate::position::Position;
use crate::square::{Move, Square};

/// How a finished game is counted.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Scoring {
    /// The discs on the board (the default).
    DiscCount,
    /// Empty squares of a game that ended early go to the winner (tournament and WTHOR convention).
    EmptiesToWinner,
}

/// Who wins.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Objective {
    /// Most discs wins (Othello, Reversi).
    MostDiscs,
    /// Fewest discs wins (Reverse Reversi, "anti-Othello").
    FewestDiscs,
}

/// The position the game starts from.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Start {
    /// d4/e5 white, d5/e4 black (on smaller boards the same pattern in the centre).
    Standard,
    /// The mirror image: d4/e5 black, d5/e4 white.
    Mirrored,
    /// Empty board: the first four moves fill the centre squares without flipping (traditional Reversi).
    EmptyCentre,
    /// Any position.
    Custom(Position),
}

/// A complete rule set. `Rules::default()` is standard 8x8 Othello.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub struct Rules {
    /// 4, 6 or 8: the board is the top-left `size`x`size` corner of the 8x8 bitboard.
    pub size: u8,
    pub start: Start,
    /// Who moves first from a `Standard`, `Mirrored` or `EmptyCentre` start (a custom start says it itself).
    pub first: Color,
    /// Whether a player without a move passes (Othello) or the game ends there (traditional Reversi).
    pub passing: bool,
    pub scoring: Scoring,
    pub objective: Objective,
}

impl Default for Rules {
    fn default() -> Rules {
        Rules::othello()
    }
}

/// What the side to move can do.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Status {
    /// It has these legal moves.
    Moves(Bitboard),
    /// It has no move but the opponent has: it must pass.
    MustPass,
    /// The game is over.
    Over,
}

/// The result of a finished (or abandoned) game.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Outcome {
    /// Disc counts as scored by the rules (empties added to the winner's margin under `EmptiesToWinner`).
    pub black: u32,
    pub white: u32,
    pub winner: Option<Color>,
}

impl Outcome {
    /// The winner's margin seen from `color`: positive when `color` wins, negative when it loses.
    pub fn margin_for(&self, color: Color) -> i32 {
        let m = (self.black as i32 - self.white as i32).abs();
        match self.winner {
            None => 0,
            Some(w) if w == color => m,
            Some(_) => -m,
        }
    }
}

impl Rules {
    /// Standard Othello on 8x8.
    pub const fn othello() -> Rules {
        Rules {
            size: 8,
            start: Start::Standard,
            first: Color::Black,
            passing: true,
            scoring: Scoring::DiscCount,
            objective: Objective::MostDiscs,
        }
    }
    /// Reverse Reversi: Othello where the fewest discs win.
    pub const fn reverse() -> Rules {
        Rules { objective: Objective::FewestDiscs, ..Rules::othello() }
    }
    /// Traditional Reversi: empty board, white first, the first four moves fill the centre without flips,
    /// and the game ends as soon as the player to move cannot move.
    pub const fn traditional() -> Rules {
        Rules { start: Start::EmptyCentre, first: Color::White, passing: false, ..Rules::othello() }
    }

    pub fn with_size(self, size: u8) -> Result<Rules, ParseError> {
        if !matches!(size, 4 | 6 | 8) {
            return Err(ParseError::UnknownName { what: "board size", value: size.to_string(), expected: "4, 6, 8" });
        }
        Ok(Rules { size, ..self })
    }

    /// Is this exactly standard 8x8 Othello up to scoring and objective (which do not change the moves)?
    pub fn has_standard_moves(&self) -> bool {
        self.size == 8 && self.passing && self.start != Start::EmptyCentre
    }

    /// The squares of the board.
    pub const fn mask(&self) -> u64 {
        match self.size {
            8 => !0,
            n => {
                let row = (1u64 << n) - 1;
                let mut m = 0;
                let mut r = 0;
                while r < n {
                    m |= row << (8 * r);
                    r += 1;
                }
                m
            }
        }
    }

    /// The four centre squares.
    pub const fn centre(&self) -> u64 {
        let c = self.size / 2 - 1;
        let a = 1u64 << (c * 8 + c);
        a | a << 1 | a << 8 | a << 9
    }

    /// The start position.
    pub fn start_position(&self) -> Position {
        let c = self.size / 2 - 1;
        let sq = |col: u8, row: u8| Bitboard(1u64 << (row * 8 + col));
        let diagonal = sq(c, c) | sq(c + 1, c + 1); // d4, e5 on 8x8
        let anti = sq(c, c + 1) | sq(c + 1, c); // d5, e4
        match self.start {
            Start::Standard => Position::from_colors(anti, diagonal, self.first),
            Start::Mirrored => Position::from_colors(diagonal, anti, self.first),
            Start::EmptyCentre => Position::from_colors(Bitboard::EMPTY, Bitboard::EMPTY, self.first),
            Start::Custom(p) => p,
        }
    }

    /// The rules of a board of `size` squares a side: `rules` if given, whose size must be the board's (a board is
    /// not silently played under other rules than those asked for), else Othello at the board's size.
    pub fn for_board(rules: Option<Rules>, size: u8) -> Result<Rules, ParseError> {
        match rules {
            Some(rules) if rules.size != size => Err(ParseError::BoardSize { size, rules_size: rules.size }),
            Some(rules) => Ok(rules),
            None => Rules::othello().with_size(size),
        }
    }

    /// Checks that a position fits the board.
    pub fn check_position(&self, pos: &Position) -> Result<(), ParseError> {
        if pos.occupied().0 & !self.mask() != 0 {
            return Err(ParseError::OffBoard { size: self.size });
        }
        Ok(())
    }

    /// The empty squares of the rules' board in `pos`.
    #[inline]
    pub fn empties(&self, pos: &Position) -> u32 {
        (self.mask() & !pos.occupied().0).count_ones()
    }

    /// Whether the discs are still being placed on the centre (traditional Reversi's first four moves).
    #[inline]
    pub fn in_opening(&self, pos: &Position) -> bool {
        self.start == Start::EmptyCentre && pos.occupied().0 & self.centre() != self.centre()
    }

    /// The legal moves of the side to move.
    #[inline]
    pub fn legal_moves(&self, pos: &Position) -> Bitboard {
        if self.in_opening(pos) {
            return Bitboard(self.centre() & !pos.occupied().0);
        }
        Bitboard(kernel::moves(pos.player.0, pos.opponent.0) & self.mask())
    }

    /// What the side to move can do.
    pub fn status(&self, pos: &Position) -> Status {
        let moves = self.legal_moves(pos);
        if moves.any() {
            Status::Moves(moves)
        } else if self.passing && self.legal_moves(&pos.pass()).any() {
            Status::MustPass
        } else {
            Status::Over
        }
    }

    pub fn is_over(&self, pos: &Position) -> bool {
        self.status(pos) == Status::Over
    }

    /// Plays `mv` if the rules allow it.
    pub fn play(&self, pos: &Position, mv: Move) -> Result<Position, IllegalMove> {
        let status = self.status(pos);
        let legal = || self.legal_moves(pos).square_list();
        match (mv, status) {
            (_, Status::Over) => Err(IllegalMove::GameOver),
            (Move::Pass, Status::MustPass) => Ok(pos.pass()),
            (Move::Pass, Status::Moves(_)) => Err(IllegalMove::PassWithMoves { side: pos.side, legal: legal() }),
            (Move::Play(sq), Status::Moves(m)) if m.contains(sq) => Ok(self.play_legal(pos, sq)),
            (Move::Play(sq), _) => Err(IllegalMove::NotLegal { mv: sq.to_string(), side: pos.side, legal: legal() }),
        }
    }

    /// Plays a square known to be legal.
    #[inline]
    pub fn play_legal(&self, pos: &Position, sq: Square) -> Position {
        if self.in_opening(pos) {
            pos.play_with_flips(sq, Bitboard::EMPTY)
        } else {
            pos.play_unchecked(sq)
        }
    }

    /// The score of a position taken as final.
    pub fn outcome(&self, pos: &Position) -> Outcome {
        let (b, w) = (pos.black().count(), pos.white().count());
        let winner = match (b.cmp(&w), self.objective) {
            (std::cmp::Ordering::Equal, _) => None,
            (std::cmp::Ordering::Greater, Objective::MostDiscs)
            | (std::cmp::Ordering::Less, Objective::FewestDiscs) => Some(Color::Black),
            _ => Some(Color::White),
        };
        let empties = self.size as u32 * self.size as u32 - b - w;
        let (mut black, mut white) = (b, w);
        if self.scoring == Scoring::EmptiesToWinner {
            // The empties widen the winner's margin: to the winner under MostDiscs, to the loser under FewestDiscs.
            match (winner, self.objective) {
                (Some(Color::Black), Objective::MostDiscs) | (Some(Color::White), Objective::FewestDiscs) => {
                    black += empties
                }
                (Some(_), _) => white += empties,
                // A drawn game splits them.
                (None, _) => {
                    black += empties / 2;
                    white += empties - empties / 2;
                }
            }
        }
        Outcome { black, white, winner }
    }
}

const RULE_NAMES: &str = "othello, reverse (or misere), traditional (or reversi), 4x4, 6x6, 8x8, empties, \
                          mirror, empty-start, white-first, black-first, no-pass, pass, start=<board string>";

/// What one item of a rule list sets, so that two items setting it differently are refused.
#[derive(Clone, Copy, PartialEq, Eq)]
enum RuleAttribute {
    Size,
    Start,
    First,
    Passing,
    Scoring,
    Objective,
}

impl RuleAttribute {
    fn same(self, a: &Rules, b: &Rules) -> bool {
        match self {
            RuleAttribute::Size => a.size == b.size,
            RuleAttribute::Start => a.start == b.start,
            RuleAttribute::First => a.first == b.first,
            RuleAttribute::Passing => a.passing == b.passing,
            RuleAttribute::Scoring => a.scoring == b.scoring,
            RuleAttribute::Objective => a.objective == b.objective,
        }
    }
}

impl FromStr for Rules {
    type Err = ParseError;
    /// A comma-separated list: a preset first if any (`othello`, `traditional`/`reversi`), then a size (`6x6`,
    /// `size=6`), `reverse`/`misere`, `empties` (empties to the winner), a start (`mirror`, `empty-start`,
    /// `start=<board string>`), `white-first`/`black-first`, `no-pass`/`pass`. Two items that set one thing
    /// differently (`4x4,6x6`, `no-pass,pass`, `4x4,start=<an 8x8 board>`) contradict each other and are refused.
    fn from_str(s: &str) -> Result<Rules, ParseError> {
        use RuleAttribute as Set;
        if s.trim().is_empty() {
            return Err(ParseError::NoRules);
        }
        let mut rules = Rules::othello();
        let mut given: Vec<(RuleAttribute, &str)> = Vec::new();
        for (i, part) in s.split(',').map(str::trim).enumerate() {
            let lower = part.to_ascii_lowercase();
            let preset = match lower.as_str() {
                "othello" | "standard" => Some(Rules { size: rules.size, ..Rules::othello() }),
                "traditional" | "reversi" => Some(Rules { size: rules.size, ..Rules::traditional() }),
                _ => None,
            };
            if let Some(preset) = preset {
                if i > 0 {
                    return Err(ParseError::PresetNotFirst(part.to_string()));
                }
                rules = preset;
                continue;
            }
            let (next, sets): (Rules, &[RuleAttribute]) = match lower.as_str() {
                "reverse" | "misere" | "anti" => {
                    (Rules { objective: Objective::FewestDiscs, ..rules }, &[Set::Objective])
                }
                "empties" | "empties-to-winner" => {
                    (Rules { scoring: Scoring::EmptiesToWinner, ..rules }, &[Set::Scoring])
                }
                "mirror" | "mirrored" => (Rules { start: Start::Mirrored, ..rules }, &[Set::Start]),
                "empty-start" => (Rules { start: Start::EmptyCentre, ..rules }, &[Set::Start]),
                "white-first" => (Rules { first: Color::White, ..rules }, &[Set::First]),
                "black-first" => (Rules { first: Color::Black, ..rules }, &[Set::First]),
                "no-pass" => (Rules { passing: false, ..rules }, &[Set::Passing]),
                "pass" => (Rules { passing: true, ..rules }, &[Set::Passing]),
                "4x4" | "size=4" => (rules.with_size(4)?, &[Set::Size]),
                "6x6" | "size=6" => (rules.with_size(6)?, &[Set::Size]),
                "8x8" | "size=8" => (rules.with_size(8)?, &[Set::Size]),
                _ if lower.starts_with("start=") => {
                    let (pos, size) = Position::parse_board(&part["start=".len()..])?;
                    (Rules { start: Start::Custom(pos), ..rules.with_size(size)? }, &[Set::Start, Set::Size])
                }
                _ => {
                    return Err(ParseError::UnknownName { what: "rule", value: part.to_string(), expected: RULE_NAMES })
                }
            };
            for &attribute in sets {
                match given.iter().find(|(a, _)| *a == attribute) {
                    Some((_, first)) if !attribute.same(&rules, &next) => {
                        return Err(ParseError::RulesContradict { first: first.to_string(), second: part.to_string() })
                    }
                    Some(_) => {}
                    None => given.push((attribute, part)),
                }
            }
            rules = next;
        }
        rules.check_position(&rules.start_position())?;
        Ok(rules)
    }
}

impl fmt::Display for Rules {
    /// The canonical spelling: `othello`, the size, then every difference from Othello; it parses back to the
    /// same rules.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "othello,{0}x{0}", self.size)?;
        match self.start {
            Start::Standard => {}
            Start::Mirrored => f.write_str(",mirror")?,
            Start::EmptyCentre => f.write_str(",empty-start")?,
            Start::Custom(p) => write!(f, ",start={}", p.to_board_string(self.size).replace(' ', ""))?,
        }
        if self.first == Color::White {
            f.write_str(",white-first")?;
        }
        if !self.passing {
            f.write_str(",no-pass")?;
        }
        if self.objective == Objective::FewestDiscs {
            f.write_str(",reverse")?;
        }
        if self.scoring == Scoring::EmptiesToWinner {
            f.write_str(",empties")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(name: &str) -> Square {
        name.parse().unwrap()
    }

    #[test]
    fn the_start_positions_follow_the_seeds() {
        let p = Rules::othello().start_position();
        assert_eq!(p.at(sq("d4")), Some(Color::White));
        assert_eq!(p.at(sq("e5")), Some(Color::White));
        assert_eq!(p.at(sq("d5")), Some(Color::Black));
        assert_eq!(p.at(sq("e4")), Some(Color::Black));
        assert_eq!(p.side, Color::Black);
        let moves: Vec<String> = Rules::othello().legal_moves(&p).map(|s| s.to_string()).collect();
        assert_eq!(moves, ["d3", "c4", "f5", "e6"]);
        let m = Rules { start: Start::Mirrored, ..Rules::othello() }.start_position();
        assert_eq!(m.at(sq("d4")), Some(Color::Black));
        let six = Rules::othello().with_size(6).unwrap().start_position();
        assert_eq!(six.at(sq("c3")), Some(Color::White));
        assert_eq!(six.at(sq("d3")), Some(Color::Black));
        assert_eq!(Rules::othello().with_size(4).unwrap().start_position().at(sq("b2")), Some(Color::White));
    }

    #[test]
    fn seed_example_d3_flips_d4() {
        let r = Rules::othello();
        let p = r.play(&r.start_position(), Move::Play(sq("d3"))).unwrap();
        assert_eq!(p.at(sq("d4")), Some(Color::Black));
        assert_eq!(p.black().count(), 4);
        assert_eq!(p.side, Color::White);
    }

    #[test]
    fn small_boards_never_offer_squares_outside_them() {
        for size in [4u8, 6] {
            let r = Rules::othello().with_size(size).unwrap();
            let mut pos = r.start_position();
            let mut rng = rand_pcg::Pcg64Mcg::new(size as u128);
            loop {
                match r.status(&pos) {
                    Status::Over => break,
                    Status::MustPass => pos = pos.pass(),
                    Status::Moves(m) => {
                        assert_eq!(m.0 & !r.mask(), 0);
                        let n = rand::Rng::random_range(&mut rng, 0..m.count());
                        pos = r.play_legal(&pos, m.nth(n).unwrap());
                        assert_eq!(pos.occupied().0 & !r.mask(), 0);
                    }
                }
            }
        }
    }

    #[test]
    fn traditional_reversi_fills_the_centre_without_flips_then_ends_when_the_mover_is_stuck() {
        let r = Rules::traditional();
        let start = r.start_position();
        assert_eq!(start.occupied(), Bitboard::EMPTY);
        assert_eq!(start.side, Color::White, "white moves first in traditional Reversi");
        assert_eq!(r.legal_moves(&start).0, r.centre());
        // Four placements, parallel pattern: white d4, black d5, white e4, black e5. Nothing flips.
        let mut p = start;
        for m in ["d4", "d5", "e4", "e5"] {
            p = r.play(&p, Move::Play(sq(m))).unwrap();
        }
        assert_eq!(p.white().count(), 2);
        assert_eq!(p.black().count(), 2);
        assert_eq!(p.at(sq("e4")), Some(Color::White));
        // After the opening the ordinary outflanking rule applies: white's d6 outflanks d5, c3 outflanks nothing.
        assert!(!r.in_opening(&p));
        let legal = r.legal_moves(&p);
        assert!(legal.contains(sq("d6")) && !legal.contains(sq("c3")));
        // The mover without a move loses the right to continue: white (to move) cannot outflank anything, black
        // could play g7, and the game is over, where Othello would make white pass.
        let black = ["a1", "b2", "c3", "d4", "e4", "d5", "e5"].iter().fold(Bitboard::EMPTY, |b, s| b.with(sq(s)));
        let stuck = Position::from_colors(black, Bitboard::from(sq("f6")), Color::White);
        assert_eq!(r.legal_moves(&stuck), Bitboard::EMPTY);
        assert_eq!(r.legal_moves(&stuck.pass()), Bitboard::from(sq("g7")));
        assert_eq!(r.status(&stuck), Status::Over);
        assert_eq!(Rules::othello().status(&stuck), Status::MustPass);
    }

    #[test]
    fn misere_and_empties_scoring() {
        // 13-0 for black with 51 empties (the shortest game's end).
        let (pos, _) = Position::parse_board(&format!("{}{} O", "X".repeat(13), "-".repeat(51))).unwrap();
        let plain = Rules::othello().outcome(&pos);
        assert_eq!((plain.black, plain.white, plain.winner), (13, 0, Some(Color::Black)));
        let empties = Rules { scoring: Scoring::EmptiesToWinner, ..Rules::othello() }.outcome(&pos);
        assert_eq!((empties.black, empties.white), (64, 0));
        let reverse = Rules::reverse().outcome(&pos);
        assert_eq!(reverse.winner, Some(Color::White));
        assert_eq!(reverse.margin_for(Color::White), 13);
    }

    #[test]
    fn rule_strings_parse_and_print() {
        let r: Rules = "reverse,6x6,empties".parse().unwrap();
        assert_eq!((r.size, r.objective, r.scoring), (6, Objective::FewestDiscs, Scoring::EmptiesToWinner));
        assert_eq!(r.to_string().parse::<Rules>().unwrap(), r);
        assert_eq!("traditional".parse::<Rules>().unwrap(), Rules::traditional());
        for r in [Rules::traditional(), Rules::reverse(), Rules { passing: false, ..Rules::othello() }] {
            assert_eq!(r.to_string().parse::<Rules>().unwrap(), r);
        }
        // A start with a disc on h8 does not fit a 6x6 board.
        let mut h8 = Rules::othello().start_position().to_board_string(8);
        h8.replace_range(63..64, "X");
        assert!(format!("start={h8}").parse::<Rules>().is_ok());
        assert!(matches!(format!("start={h8},6x6").parse::<Rules>(), Err(ParseError::RulesContradict { .. })));
        assert!("7x7".parse::<Rules>().is_err());
        assert!("start=XO".parse::<Rules>().is_err());
        let custom: Rules = format!("start={}", Rules::othello().start_position()).parse().unwrap();
        assert_eq!(custom.start_position(), Rules::othello().start_position());
    }

    #[test]
    fn contradictory_or_empty_rule_lists_are_refused() {
        let contradiction = |s: &str| match s.parse::<Rules>() {
            Err(ParseError::RulesContradict { first, second }) => (first, second),
            other => panic!("{s}: {other:?}"),
        };
        assert_eq!(contradiction("4x4,6x6"), ("4x4".into(), "6x6".into()));
        assert_eq!(contradiction("traditional,no-pass,pass"), ("no-pass".into(), "pass".into()));
        assert_eq!(contradiction("mirror,empty-start"), ("mirror".into(), "empty-start".into()));
        let six = Rules::othello().with_size(6).unwrap().start_position().to_board_string(6);
        assert_eq!(contradiction(&format!("othello,4x4,start={six}")), ("4x4".into(), format!("start={six}")));
        assert_eq!("".parse::<Rules>(), Err(ParseError::NoRules));
        assert_eq!(" ".parse::<Rules>(), Err(ParseError::NoRules));
        assert!(matches!("othello,,6x6".parse::<Rules>(), Err(ParseError::UnknownName { .. })));
        assert_eq!("no-pass,othello".parse::<Rules>(), Err(ParseError::PresetNotFirst("othello".into())));
        // Saying one thing twice the same way, or refining a preset, is no contradiction.
        assert_eq!("6x6,6x6".parse::<Rules>().unwrap().size, 6);
        assert!("traditional,pass".parse::<Rules>().unwrap().passing);
        assert_eq!(format!("6x6,start={six}").parse::<Rules>().unwrap().size, 6);
    }
}
