//! The WTHOR database (French Othello Federation): game files `WTH_####.wtb`, player names `WTHOR.JOU`, tournament
//! names `WTHOR.TRN`. Little-endian; a 16-byte header, then fixed-size records. See `wthor_spec.pdf` in the data.

use thiserror::Error;

use crate::game::Game;
use crate::rules::{Rules, Scoring};
use crate::square::{Move, Square};

const HEADER: usize = 16;
const GAME_RECORD: usize = 68;

#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum WthorError {
    #[error("file is {0} bytes, shorter than the 16-byte WTHOR header")]
    NoHeader(usize),
    #[error("board size {0} is not supported (only 8x8 game files, .wtb)")]
    BoardSize(u8),
    #[error(
        "truncated or oversized: the header announces {announced} games ({expected} bytes) \
         but the file has {actual} bytes ({complete} complete games)"
    )]
    Size { announced: u32, expected: usize, actual: usize, complete: usize },
    #[error(
        "game {game}: move {number} has the byte {byte}, which is no square (expected 11..88 or 0 after the last move)"
    )]
    BadMove { game: usize, number: usize, byte: u8 },
    #[error("{records} {what} records announced, but the file has {actual} bytes")]
    NamesSize { what: &'static str, records: usize, actual: usize },
}

/// The 16-byte header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// Creation date: century, year in century, month, day.
    pub created: [u8; 4],
    /// Number of games (game files).
    pub games: u32,
    /// Number of players or tournaments (name files).
    pub names: u16,
    pub year: u16,
    /// 0 or 8: 8x8; 10: 10x10.
    pub board_size: u8,
    /// Depth (empties) of the theoretical score; 0 means 22.
    pub depth: u8,
}

impl Header {
    /// Empties from which the theoretical score is perfect play (the field's 0 means 22).
    pub fn theoretical_depth(&self) -> u32 {
        if self.depth == 0 {
            22
        } else {
            self.depth as u32
        }
    }

    fn parse(b: &[u8]) -> Result<Header, WthorError> {
        if b.len() < HEADER {
            return Err(WthorError::NoHeader(b.len()));
        }
        Ok(Header {
            created: [b[0], b[1], b[2], b[3]],
            games: u32::from_le_bytes([b[4], b[5], b[6], b[7]]),
            names: u16::from_le_bytes([b[8], b[9]]),
            year: u16::from_le_bytes([b[10], b[11]]),
            board_size: b[12],
            depth: b[14],
        })
    }
}

/// One game record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WthorGame {
    pub tournament: u16,
    pub black_player: u16,
    pub white_player: u16,
    /// Black's final disc count, empties counted for the winner.
    pub black_score: u8,
    /// Black's disc count under perfect play from `depth` empties.
    pub theoretical_score: u8,
    /// The moves, without passes.
    pub moves: Vec<Square>,
}

impl WthorGame {
    /// Replays the game under standard rules with the WTHOR scoring (empties to the winner).
    pub fn replay(&self) -> Result<Game, crate::GameError> {
        let rules = Rules { scoring: Scoring::EmptiesToWinner, ..Rules::othello() };
        let moves: Vec<Move> = self.moves.iter().map(|&s| Move::Play(s)).collect();
        Game::replay(rules, &moves)
    }
}

/// A parsed game file.
#[derive(Clone, Debug)]
pub struct WthorFile {
    pub header: Header,
    pub games: Vec<WthorGame>,
}

impl WthorFile {
    /// Parses a `.wtb` file; every record is checked, and a file whose size disagrees with its header is an error.
    pub fn parse(bytes: &[u8]) -> Result<WthorFile, WthorError> {
        let header = Header::parse(bytes)?;
        if !matches!(header.board_size, 0 | 8) {
            return Err(WthorError::BoardSize(header.board_size));
        }
        let body = &bytes[HEADER..];
        let expected = HEADER + header.games as usize * GAME_RECORD;
        if bytes.len() != expected {
            return Err(WthorError::Size {
                announced: header.games,
                expected,
                actual: bytes.len(),
                complete: body.len() / GAME_RECORD,
            });
        }
        let games =
            body.chunks_exact(GAME_RECORD).enumerate().map(|(i, r)| parse_game(i + 1, r)).collect::<Result<_, _>>()?;
        Ok(WthorFile { header, games })
    }
}

fn parse_game(game: usize, r: &[u8]) -> Result<WthorGame, WthorError> {
    let word = |i: usize| u16::from_le_bytes([r[i], r[i + 1]]);
    let mut moves = Vec::with_capacity(60);
    let mut ended = false;
    for (i, &byte) in r[8..].iter().enumerate() {
        let (row, col) = (byte / 10, byte % 10);
        match byte {
            0 => ended = true,
            _ if !ended && (1..=8).contains(&row) && (1..=8).contains(&col) => {
                moves.push(Square::at(col - 1, row - 1).expect("checked range"))
            }
            _ => return Err(WthorError::BadMove { game, number: i + 1, byte }),
        }
    }
    Ok(WthorGame {
        tournament: word(0),
        black_player: word(2),
        white_player: word(4),
        black_score: r[6],
        theoretical_score: r[7],
        moves,
    })
}

/// Reads a names file: `WTHOR.JOU` (players, 20-byte records) or `WTHOR.TRN` (tournaments, 26-byte records).
pub fn parse_names(bytes: &[u8], record: usize) -> Result<Vec<String>, WthorError> {
    let header = Header::parse(bytes)?;
    let n = header.names as usize;
    if bytes.len() < HEADER + n * record {
        return Err(WthorError::NamesSize { what: "name", records: n, actual: bytes.len() });
    }
    Ok(bytes[HEADER..HEADER + n * record]
        .chunks_exact(record)
        .map(|r| {
            let end = r.iter().position(|&b| b == 0).unwrap_or(r.len());
            // Names are in the Latin-1 of the original PC files.
            r[..end].iter().map(|&b| b as char).collect()
        })
        .collect())
}

/// Record sizes of the two name files.
pub const PLAYER_RECORD: usize = 20;
pub const TOURNAMENT_RECORD: usize = 26;

#[cfg(test)]
mod tests {
    use super::*;

    fn data_dir() -> std::path::PathBuf {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/wthor")
    }

    /// Every game of the database replays legally, and every finished one to its stored score.
    #[test]
    fn every_wthor_game_replays_to_its_stored_score() {
        let mut files: Vec<_> = std::fs::read_dir(data_dir()).unwrap().map(|e| e.unwrap().path()).collect();
        files.retain(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("wtb")));
        assert_eq!(files.len(), 45, "WTH_1977.wtb .. WTH_2021.wtb");
        let (mut total, mut finished) = (0, 0);
        for f in &files {
            let file = WthorFile::parse(&std::fs::read(f).unwrap()).unwrap();
            assert_eq!(file.games.len(), file.header.games as usize);
            for (i, g) in file.games.iter().enumerate() {
                total += 1;
                let game = g.replay().unwrap_or_else(|e| panic!("{} game {}: {e}", f.display(), i + 1));
                if game.is_over() {
                    finished += 1;
                    assert_eq!(game.outcome().black, g.black_score as u32, "{} game {}", f.display(), i + 1);
                }
            }
        }
        assert_eq!(total, 127_475);
        // A few hundred games stop before the end (resignations, time losses); the rest must be complete.
        assert!(finished > 127_000, "{finished} finished games");
    }

    #[test]
    fn damaged_files_are_reported_not_misread() {
        let bytes = std::fs::read(data_dir().join("WTH_2021.wtb")).unwrap();
        let file = WthorFile::parse(&bytes).unwrap();
        assert_eq!(file.header.year, 2021);
        assert!(matches!(WthorFile::parse(&bytes[..10]), Err(WthorError::NoHeader(10))));
        let cut = &bytes[..bytes.len() - 5];
        let err = WthorFile::parse(cut).unwrap_err();
        assert!(matches!(err, WthorError::Size { complete, .. } if complete == file.games.len() - 1), "{err}");
        let mut bad = bytes.clone();
        bad[16 + 8 + 2] = 99;
        assert_eq!(WthorFile::parse(&bad).unwrap_err(), WthorError::BadMove { game: 1, number: 3, byte: 99 });
        let mut gap = bytes.clone();
        gap[16 + 8 + 2] = 0; // a move after the end marker
        assert!(matches!(WthorFile::parse(&gap), Err(WthorError::BadMove { game: 1, number: 4, .. })));
    }

    #[test]
    fn player_and_tournament_names_read() {
        let players = parse_names(&std::fs::read(data_dir().join("WTHOR.JOU")).unwrap(), PLAYER_RECORD).unwrap();
        let tournaments =
            parse_names(&std::fs::read(data_dir().join("WTHOR.TRN")).unwrap(), TOURNAMENT_RECORD).unwrap();
        assert!(players.len() > 3000 && tournaments.len() > 400, "{} {}", players.len(), tournaments.len());
        let file = WthorFile::parse(&std::fs::read(data_dir().join("WTH_2021.wtb")).unwrap()).unwrap();
        for g in &file.games {
            assert!((g.black_player as usize) < players.len() && (g.tournament as usize) < tournaments.len());
        }
    }
}
