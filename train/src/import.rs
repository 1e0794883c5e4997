//! Expert games as replay shards: every decision of a finished WTHOR game becomes a position whose policy target
//! is the move played and whose value, margin and ownership targets come from the game's end, so that a network
//! can be pre-trained, or a pipeline checked, on real games.

use std::path::{Path, PathBuf};

use othello_core::wthor::{WthorFile, WthorGame};
use othello_core::{Game, Move, POLICY_SIZE};
use othello_run::{GameRecord, PositionRecord, Provenance, Shard, ShardError};
use thiserror::Error;

#[derive(Debug, Error)]
pub enum ImportError {
    #[error("WTHOR file {}: {problem}", path.display())]
    Wthor { path: PathBuf, problem: String },
    #[error(transparent)]
    Shard(#[from] ShardError),
}

/// The worker id recorded in imported positions (self-play workers number from 0).
pub const IMPORT_WORKER: u64 = u64::MAX;

/// What an import did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ImportReport {
    pub games: u64,
    pub positions: u64,
    pub shards: Vec<PathBuf>,
    /// Games left out, with the reason: unfinished games (no final result to learn) and illegal records.
    pub skipped: Vec<String>,
}

/// The training record of a WTHOR game: one position per move played (forced passes are no decision), the move
/// as a one-hot policy target. An error says why when the game does not replay or did not reach its end.
pub fn expert_record(game: &WthorGame) -> Result<GameRecord, String> {
    let played = game.replay().map_err(|e| e.to_string())?;
    if !played.is_over() {
        return Err(format!("unfinished after {} moves", game.moves.len()));
    }
    let positions = expert_positions(&played)
        .map(|(ply, position, sq)| {
            let mut policy = [0f32; POLICY_SIZE];
            policy[sq] = 1.0;
            PositionRecord {
                position,
                ply: ply as u32,
                policy,
                full_search: true,
                exact_margin: None,
                search_value: None,
            }
        })
        .collect();
    Ok(GameRecord { game: played, positions, seed: 0 })
}

/// The decisions of a game: ply, position, and the square played there.
pub fn expert_positions(game: &Game) -> impl Iterator<Item = (usize, othello_core::Position, usize)> + '_ {
    game.moves().iter().enumerate().filter_map(|(ply, mv)| match mv {
        Move::Play(sq) => Some((ply, game.positions()[ply], sq.index())),
        Move::Pass => None,
    })
}

/// Imports `files` into `replay_dir`, `games_per_shard` games per shard, named `wthor-<file>-<k>.npz`.
pub fn import_wthor(files: &[PathBuf], replay_dir: &Path, games_per_shard: usize) -> Result<ImportReport, ImportError> {
    let mut report = ImportReport::default();
    for path in files {
        let bad = |problem: String| ImportError::Wthor { path: path.clone(), problem };
        let bytes = std::fs::read(path).map_err(|e| bad(format!("reading: {e}")))?;
        let file = WthorFile::parse(&bytes).map_err(|e| bad(e.to_string()))?;
        let stem = path.file_stem().map_or("wthor".into(), |s| s.to_string_lossy().to_string());
        for (chunk, games) in file.games.chunks(games_per_shard.max(1)).enumerate() {
            let mut shard = Shard::default();
            for (i, game) in games.iter().enumerate() {
                let index = chunk * games_per_shard.max(1) + i;
                match expert_record(game) {
                    Ok(record) => {
                        let from = Provenance { model: 0, game: report.games, worker: IMPORT_WORKER };
                        shard.push_game(&record, from);
                        report.games += 1;
                    }
                    Err(why) => report.skipped.push(format!("{}: game {}: {why}", path.display(), index + 1)),
                }
            }
            if !shard.is_empty() {
                report.positions += shard.len() as u64;
                report.shards.push(shard.write_atomic(replay_dir, &format!("wthor-{stem}-{chunk:04}.npz"))?);
            }
        }
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expert_records_hold_the_moves_played_and_the_stored_result() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/wthor/WTH_2004.wtb");
        let file = WthorFile::parse(&std::fs::read(&path).unwrap()).unwrap();
        let mut finished = 0;
        for game in file.games.iter().take(300) {
            let Ok(record) = expert_record(game) else { continue };
            finished += 1;
            let played: Vec<usize> = game.moves.iter().map(|s| s.index()).collect();
            let targets: Vec<usize> =
                record.positions.iter().map(|p| p.policy.iter().position(|&x| x == 1.0).unwrap()).collect();
            assert_eq!(targets, played);
            // The value of the first position (black to move) agrees with the database's final score.
            let black_margin = 2 * game.black_score as i32 - 64;
            assert_eq!(record.margin_target(0), black_margin);
            assert_eq!(record.value_target(0), black_margin.signum() as f32);
        }
        assert!(finished > 250);
    }
}
