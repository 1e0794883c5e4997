//! Exact labels for the evaluation fit: the positions of real games with few empties, solved exactly, and for each
//! one other child (a move the players did not choose), because the solver's trees are mostly such positions.
//!
//! A WTHOR game's own labels are its theoretical score (perfect play from 22 empties) and its final score, and the
//! human moves in between make them wrong for a position at 14-18 empties by 9-14 discs (RMS, measured on WTHOR
//! 2012 against exact solves). [`fit::wthor_samples`](super::fit::wthor_samples) takes each position's label from
//! the nearest position whose value is known, exact labels included.
//!
//! The labels of a set of games are kept in a label file ([`LabelFile`]), written by `othello-zero label-endgames`
//! and read by `othello-zero fit-eval --labels`.

use rand::{Rng, SeedableRng};
use thiserror::Error;

use crate::solve::{Limits, Mode, SolveError, Solver};
use crate::{Game, Status};

/// A position (`player` to move) and its exact final disc difference for the player.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Label {
    pub player: u64,
    pub opponent: u64,
    pub score: i8,
    /// Played in the game (else a child the players did not choose).
    pub on_line: bool,
}

/// The exact labels of a game's positions with `min_empties..=max_empties` empties where the mover has a move, and
/// of one other child of each (chosen by `seed`) where the child's mover has a move.
pub fn label_game(
    game: &Game,
    empties: std::ops::RangeInclusive<u32>,
    seed: u64,
    solver: &mut Solver,
) -> Result<Vec<Label>, SolveError> {
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(seed);
    let rules = &game.rules;
    let mut solve = |pos: &crate::Position, on_line: bool| -> Result<Label, SolveError> {
        let score = solver.solve(rules, pos, Mode::BestMove, Limits::default())?.score as i8;
        Ok(Label { player: pos.player.0, opponent: pos.opponent.0, score, on_line })
    };
    let positions = game.positions();
    let mut labels = vec![];
    for (i, pos) in positions.iter().enumerate() {
        if !empties.contains(&(64 - pos.occupied().count())) {
            continue;
        }
        let Status::Moves(moves) = rules.status(pos) else { continue };
        labels.push(solve(pos, true)?);
        let played = positions.get(i + 1);
        let others: Vec<_> = moves.into_iter().map(|m| pos.play_unchecked(m)).filter(|c| Some(c) != played).collect();
        if others.is_empty() {
            continue;
        }
        let child = others[rng.random_range(0..others.len())];
        if matches!(rules.status(&child), Status::Moves(_)) {
            labels.push(solve(&child, false)?);
        }
    }
    Ok(labels)
}

/// What a label file covers: the games selected (every `every`-th game of the input files, in order), the band of
/// empties, the seed of the other children, and how many of the selected games are done (a run resumes there).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LabelRun {
    pub every: u32,
    pub min_empties: u8,
    pub max_empties: u8,
    pub seed: u64,
    pub games_done: u64,
}

/// A label file: `OZLABEL1`, then the [`LabelRun`] (every as u32, min and max empties as u8, seed and games done as
/// u64, little-endian), then 18-byte records: player and opponent bitboards (u64 little-endian, bit 0 = a1), the
/// score (i8) and 1 if the position was played in its game, else 0.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LabelFile {
    pub run: LabelRun,
    pub labels: Vec<Label>,
}

const MAGIC: &[u8; 8] = b"OZLABEL1";
const HEADER: usize = 8 + 4 + 1 + 1 + 8 + 8;
const RECORD: usize = 18;

#[derive(Debug, Error, PartialEq, Eq)]
pub enum LabelFileError {
    #[error("not a label file (it does not start with OZLABEL1)")]
    Magic,
    #[error("truncated: {0} bytes, not a header and whole 18-byte records")]
    Truncated(usize),
    #[error("record {record}: {problem}")]
    Record { record: usize, problem: &'static str },
}

impl LabelFile {
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(HEADER + RECORD * self.labels.len());
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&self.run.every.to_le_bytes());
        out.extend_from_slice(&[self.run.min_empties, self.run.max_empties]);
        out.extend_from_slice(&self.run.seed.to_le_bytes());
        out.extend_from_slice(&self.run.games_done.to_le_bytes());
        for l in &self.labels {
            out.extend_from_slice(&l.player.to_le_bytes());
            out.extend_from_slice(&l.opponent.to_le_bytes());
            out.extend_from_slice(&[l.score as u8, l.on_line as u8]);
        }
        out
    }

    pub fn from_bytes(bytes: &[u8]) -> Result<LabelFile, LabelFileError> {
        if !bytes.starts_with(MAGIC) {
            return Err(LabelFileError::Magic);
        }
        if bytes.len() < HEADER || !(bytes.len() - HEADER).is_multiple_of(RECORD) {
            return Err(LabelFileError::Truncated(bytes.len()));
        }
        let u64_at = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
        let run = LabelRun {
            every: u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes")),
            min_empties: bytes[12],
            max_empties: bytes[13],
            seed: u64_at(14),
            games_done: u64_at(22),
        };
        let labels = bytes[HEADER..]
            .chunks_exact(RECORD)
            .enumerate()
            .map(|(record, r)| {
                let (player, opponent) = (u64_at(HEADER + record * RECORD), u64_at(HEADER + record * RECORD + 8));
                let problem = if player & opponent != 0 {
                    "the players' discs overlap"
                } else if !(-64..=64).contains(&(r[16] as i8)) {
                    "score outside -64..=64"
                } else if r[17] > 1 {
                    "the played flag is neither 0 nor 1"
                } else {
                    return Ok(Label { player, opponent, score: r[16] as i8, on_line: r[17] == 1 });
                };
                Err(LabelFileError::Record { record, problem })
            })
            .collect::<Result<_, _>>()?;
        Ok(LabelFile { run, labels })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Position, Rules};

    /// A game of random moves under the WTHOR scoring (empties to the winner).
    fn random_game(seed: u64) -> Game {
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(seed);
        let mut game = Game::new(Rules { scoring: crate::Scoring::EmptiesToWinner, ..Rules::othello() });
        loop {
            let mv = match game.status() {
                Status::Moves(moves) => {
                    crate::Move::Play(moves.nth(rng.random_range(0..moves.count())).expect("a move"))
                }
                Status::MustPass => crate::Move::Pass,
                Status::Over => return game,
            };
            game.push(mv).expect("legal");
        }
    }

    /// Every label agrees with plain minimax (the independent truth for 10 empties and fewer), the played positions
    /// are the game's and the others are children of them.
    #[test]
    fn labels_are_exact_scores() {
        fn minimax(pos: &Position) -> i32 {
            let moves = pos.moves();
            if moves.is_empty() {
                let passed = pos.pass();
                if passed.moves().is_empty() {
                    let (p, o) = (pos.player.count() as i32, pos.opponent.count() as i32);
                    let empty = 64 - p - o;
                    return p - o
                        + if p > o {
                            empty
                        } else if p < o {
                            -empty
                        } else {
                            0
                        };
                }
                return -minimax(&passed);
            }
            moves.into_iter().map(|m| -minimax(&pos.play_unchecked(m))).max().expect("a move")
        }
        let mut solver = Solver::new();
        let (mut on, mut off) = (0, 0);
        for seed in 0..6 {
            let game = random_game(seed);
            let labels = label_game(&game, 4..=9, seed, &mut solver).expect("solves");
            for l in &labels {
                let pos = Position {
                    player: crate::Bitboard(l.player),
                    opponent: crate::Bitboard(l.opponent),
                    ..*game.start()
                };
                assert_eq!(l.score as i32, minimax(&pos), "{pos:?}");
                let played = game.positions().iter().any(|p| p.player.0 == l.player && p.opponent.0 == l.opponent);
                assert_eq!(played, l.on_line);
                if !l.on_line {
                    let child = |p: &Position, m| p.play_unchecked(m);
                    let same = |c: Position| (c.player, c.opponent) == (pos.player, pos.opponent);
                    assert!(game.positions().iter().any(|p| p.moves().into_iter().map(|m| child(p, m)).any(same)));
                }
            }
            on += labels.iter().filter(|l| l.on_line).count();
            off += labels.iter().filter(|l| !l.on_line).count();
        }
        assert!(on >= 20 && off >= 10, "{on} played and {off} other positions");
    }

    #[test]
    fn label_files_round_trip_and_reject_damage() {
        let game = random_game(9);
        let labels = label_game(&game, 6..=10, 1, &mut Solver::new()).expect("solves");
        let run = LabelRun { every: 3, min_empties: 6, max_empties: 10, seed: 1, games_done: 1 };
        let file = LabelFile { run, labels };
        let bytes = file.to_bytes();
        assert_eq!(LabelFile::from_bytes(&bytes), Ok(file.clone()));
        assert_eq!(LabelFile::from_bytes(&bytes[..bytes.len() - 1]), Err(LabelFileError::Truncated(bytes.len() - 1)));
        assert_eq!(LabelFile::from_bytes(b"OZLABEL2"), Err(LabelFileError::Magic));
        let mut bad = bytes.clone();
        bad[HEADER + RECORD + 16] = 100;
        assert_eq!(
            LabelFile::from_bytes(&bad),
            Err(LabelFileError::Record { record: 1, problem: "score outside -64..=64" })
        );
    }
}
