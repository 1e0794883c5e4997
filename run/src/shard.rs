//! Replay shards: self-play positions and their training targets as a numpy-readable `.npz` (schema in
//! docs/ARCHITECTURE.md), written atomically (temporary file, fsync, rename) and validated when read.

use std::fs::File;
use std::io::{BufReader, Cursor, Write};
use std::path::{Path, PathBuf};

use ndarray::{Array1, Array2};
use ndarray_npy::{NpzReader, NpzWriter};
use othello_core::{Bitboard, Color, Position, Rules, Scoring, Start, POLICY_SIZE};
use thiserror::Error;

use crate::game_record::GameRecord;

/// The schema version written in every shard (`version` array). Readers take this one and version 1 (which has
/// no `search_value`: it reads as `value`), and refuse others.
pub const SHARD_VERSION: u32 = 2;

#[derive(Debug, Error)]
#[error("replay shard {}: {problem}", path.display())]
pub struct ShardError {
    pub path: PathBuf,
    pub problem: String,
}

/// Where a game came from, recorded with each of its positions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Provenance {
    /// The model that played (0: no model, e.g. the uniform evaluator).
    pub model: u64,
    /// Unique id of the game.
    pub game: u64,
    /// Id of the worker that played it.
    pub worker: u64,
}

/// Columns of a shard, one entry per position (`policy` and `ownership` hold 65 and 64 entries per position).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Shard {
    pub player: Vec<u64>,
    pub opponent: Vec<u64>,
    /// 0 black, 1 white.
    pub side: Vec<u8>,
    pub ply: Vec<u16>,
    /// The rules, packed by [`pack_rules`].
    pub rules: Vec<u16>,
    pub policy: Vec<f32>,
    /// Final result for the side to move: 1, 0, -1.
    pub value: Vec<f32>,
    /// Final disc margin for the side to move.
    pub margin: Vec<i8>,
    /// Final owner of each square for the side to move: 1 own, -1 opponent, 0 empty.
    pub ownership: Vec<i8>,
    /// The search's value of the move played for the side to move, -1..1; `value` where no search chose it.
    pub search_value: Vec<f32>,
    pub full_search: Vec<u8>,
    pub solved: Vec<u8>,
    pub model: Vec<u64>,
    pub game: Vec<u64>,
    pub worker: Vec<u64>,
    pub seed: Vec<u64>,
}

/// Rules in 16 bits: size (bits 0-3), passing (4), empties to the winner (5), fewest discs wins (6), start
/// (bits 7-8: standard, mirrored, empty centre, custom), white first (9).
pub fn pack_rules(r: &Rules) -> u16 {
    let start = match r.start {
        Start::Standard => 0,
        Start::Mirrored => 1,
        Start::EmptyCentre => 2,
        Start::Custom(_) => 3,
    };
    r.size as u16
        | (r.passing as u16) << 4
        | ((r.scoring == Scoring::EmptiesToWinner) as u16) << 5
        | ((r.objective == othello_core::Objective::FewestDiscs) as u16) << 6
        | start << 7
        | ((r.first == Color::White) as u16) << 9
}

/// The rules back from [`pack_rules`]. A custom start comes back as `Start::Custom` of the standard start
/// position: the packed form does not keep the position, and nothing a trainer asks of the rules (legal moves,
/// board mask) depends on it.
pub fn unpack_rules(packed: u16) -> Rules {
    let start = match packed >> 7 & 3 {
        0 => Start::Standard,
        1 => Start::Mirrored,
        2 => Start::EmptyCentre,
        _ => Start::Custom(Rules::othello().start_position()),
    };
    Rules {
        size: (packed & 0xf) as u8,
        start,
        first: if packed >> 9 & 1 == 1 { Color::White } else { Color::Black },
        passing: packed >> 4 & 1 == 1,
        scoring: if packed >> 5 & 1 == 1 { Scoring::EmptiesToWinner } else { Scoring::DiscCount },
        objective: if packed >> 6 & 1 == 1 {
            othello_core::Objective::FewestDiscs
        } else {
            othello_core::Objective::MostDiscs
        },
    }
}

impl Shard {
    pub fn len(&self) -> usize {
        self.player.len()
    }
    pub fn is_empty(&self) -> bool {
        self.player.is_empty()
    }

    /// The position of row `row`, as [`Shard::push_game`] stored it.
    pub fn position(&self, row: usize) -> Position {
        Position {
            player: Bitboard(self.player[row]),
            opponent: Bitboard(self.opponent[row]),
            side: if self.side[row] == 1 { Color::White } else { Color::Black },
        }
    }

    /// Appends every position of a finished game.
    pub fn push_game(&mut self, record: &GameRecord, from: Provenance) {
        let rules = pack_rules(&record.game.rules);
        for (i, r) in record.positions.iter().enumerate() {
            self.player.push(r.position.player.0);
            self.opponent.push(r.position.opponent.0);
            self.side.push((r.position.side == Color::White) as u8);
            self.ply.push(r.ply as u16);
            self.rules.push(rules);
            self.policy.extend_from_slice(&r.policy);
            self.value.push(record.value_target(i));
            self.margin.push(record.margin_target(i) as i8);
            self.ownership.extend_from_slice(&record.ownership_target(i));
            self.search_value.push(record.search_value_target(i));
            self.full_search.push(r.full_search as u8);
            self.solved.push(r.exact_margin.is_some() as u8);
            self.model.push(from.model);
            self.game.push(from.game);
            self.worker.push(from.worker);
            self.seed.push(record.seed);
        }
    }

    /// Writes the shard as `dir/name` atomically: readers never see a partial file.
    pub fn write_atomic(&self, dir: &Path, name: &str) -> Result<PathBuf, ShardError> {
        let path = dir.join(name);
        let err = |problem: String| ShardError { path: path.clone(), problem };
        std::fs::create_dir_all(dir).map_err(|e| err(format!("creating the directory: {e}")))?;
        let tmp = crate::atomic::temp_path(&path);
        let n = self.len();
        // The archive is built in memory, so a failing disk fails a plain write below, not the zip writer (whose
        // drop would retry and complain on stderr).
        let write = || -> Result<(), Box<dyn std::error::Error>> {
            let mut npz = NpzWriter::new_compressed(Cursor::new(Vec::new()));
            npz.add_array("version", &Array1::from(vec![SHARD_VERSION]))?;
            npz.add_array("player", &Array1::from(self.player.clone()))?;
            npz.add_array("opponent", &Array1::from(self.opponent.clone()))?;
            npz.add_array("side", &Array1::from(self.side.clone()))?;
            npz.add_array("ply", &Array1::from(self.ply.clone()))?;
            npz.add_array("rules", &Array1::from(self.rules.clone()))?;
            npz.add_array("policy", &Array2::from_shape_vec((n, POLICY_SIZE), self.policy.clone())?)?;
            npz.add_array("value", &Array1::from(self.value.clone()))?;
            npz.add_array("margin", &Array1::from(self.margin.clone()))?;
            npz.add_array("ownership", &Array2::from_shape_vec((n, 64), self.ownership.clone())?)?;
            npz.add_array("search_value", &Array1::from(self.search_value.clone()))?;
            npz.add_array("full_search", &Array1::from(self.full_search.clone()))?;
            npz.add_array("solved", &Array1::from(self.solved.clone()))?;
            npz.add_array("model", &Array1::from(self.model.clone()))?;
            npz.add_array("game", &Array1::from(self.game.clone()))?;
            npz.add_array("worker", &Array1::from(self.worker.clone()))?;
            npz.add_array("seed", &Array1::from(self.seed.clone()))?;
            let bytes = npz.finish()?.into_inner();
            let mut file = File::create(&tmp)?;
            file.write_all(&bytes)?;
            file.sync_all()?;
            std::fs::rename(&tmp, &path)?;
            Ok(())
        };
        write().map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            err(format!("writing: {e}"))
        })?;
        Ok(path)
    }

    /// Reads and validates a shard.
    pub fn read(path: &Path) -> Result<Shard, ShardError> {
        let err = |problem: String| ShardError { path: path.to_path_buf(), problem };
        let file = File::open(path).map_err(|e| err(format!("opening: {e}")))?;
        let mut npz = NpzReader::new(BufReader::new(file)).map_err(|e| err(format!("not a readable .npz: {e}")))?;
        macro_rules! column {
            ($name:literal) => {
                npz.by_name::<_, ndarray::Ix1>($name)
                    .map_err(|e| err(format!("array '{}': {e}", $name)))?
                    .into_raw_vec_and_offset()
                    .0
            };
        }
        macro_rules! matrix {
            ($name:literal, $width:expr, $t:ty) => {{
                let a = npz
                    .by_name::<ndarray::OwnedRepr<$t>, ndarray::Ix2>($name)
                    .map_err(|e| err(format!("array '{}': {e}", $name)))?;
                if a.ncols() != $width {
                    return Err(err(format!("array '{}' has {} columns, expected {}", $name, a.ncols(), $width)));
                }
                a.as_standard_layout().iter().copied().collect::<Vec<_>>()
            }};
        }
        let version: Vec<u32> = column!("version");
        if version != [SHARD_VERSION] && version != [1] {
            return Err(err(format!("schema version {version:?}, this reader knows 1 and {SHARD_VERSION}")));
        }
        let value: Vec<f32> = column!("value");
        let search_value = if version == [1] { value.clone() } else { column!("search_value") };
        let shard = Shard {
            player: column!("player"),
            opponent: column!("opponent"),
            side: column!("side"),
            ply: column!("ply"),
            rules: column!("rules"),
            policy: matrix!("policy", POLICY_SIZE, f32),
            value,
            margin: column!("margin"),
            ownership: matrix!("ownership", 64, i8),
            search_value,
            full_search: column!("full_search"),
            solved: column!("solved"),
            model: column!("model"),
            game: column!("game"),
            worker: column!("worker"),
            seed: column!("seed"),
        };
        shard.validate().map_err(err)?;
        Ok(shard)
    }

    /// Checks lengths and values, so that nothing malformed reaches training.
    fn validate(&self) -> Result<(), String> {
        let n = self.len();
        let lengths = [
            ("opponent", self.opponent.len()),
            ("side", self.side.len()),
            ("ply", self.ply.len()),
            ("rules", self.rules.len()),
            ("policy", self.policy.len() / POLICY_SIZE),
            ("value", self.value.len()),
            ("margin", self.margin.len()),
            ("ownership", self.ownership.len() / 64),
            ("search_value", self.search_value.len()),
            ("full_search", self.full_search.len()),
            ("solved", self.solved.len()),
            ("model", self.model.len()),
            ("game", self.game.len()),
            ("worker", self.worker.len()),
            ("seed", self.seed.len()),
        ];
        if let Some((name, len)) = lengths.iter().find(|(_, len)| *len != n) {
            return Err(format!("array '{name}' has {len} rows, 'player' has {n}"));
        }
        for i in 0..n {
            let bad = |what: &str| Err(format!("position {i}: {what}"));
            if self.player[i] & self.opponent[i] != 0 {
                return bad("the two bitboards overlap");
            }
            if self.side[i] > 1 || !matches!(self.rules[i] & 0xf, 4 | 6 | 8) {
                return bad("bad side or rules");
            }
            let policy = &self.policy[i * POLICY_SIZE..(i + 1) * POLICY_SIZE];
            let sum: f32 = policy.iter().sum();
            if policy.iter().any(|p| !p.is_finite() || *p < 0.0) || (sum - 1.0).abs() > 1e-3 {
                return bad("policy target is not a distribution");
            }
            if ![-1.0, 0.0, 1.0].contains(&self.value[i]) || self.value[i] != self.margin[i].signum() as f32 {
                return bad("value target disagrees with the margin");
            }
            if self.ownership[i * 64..(i + 1) * 64].iter().any(|&o| !(-1..=1).contains(&o)) {
                return bad("ownership outside -1..1");
            }
            if !(-1.0..=1.0).contains(&self.search_value[i]) {
                return bad("search value outside -1..1");
            }
        }
        Ok(())
    }
}

/// Reads every `*.npz` shard of `dir` (sorted by name); a bad shard is reported and skipped, never fatal.
pub fn read_shards(dir: &Path) -> (Vec<(PathBuf, Shard)>, Vec<ShardError>) {
    let mut names: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(entries) => entries.filter_map(|e| e.ok().map(|e| e.path())).collect(),
        Err(e) => return (vec![], vec![ShardError { path: dir.to_path_buf(), problem: format!("listing: {e}") }]),
    };
    names.retain(|p| {
        p.extension().is_some_and(|e| e == "npz")
            && !p.file_name().is_some_and(|n| n.to_string_lossy().starts_with('.'))
    });
    names.sort();
    let (mut good, mut bad) = (Vec::new(), Vec::new());
    for path in names {
        match Shard::read(&path) {
            Ok(s) => good.push((path, s)),
            Err(e) => bad.push(e),
        }
    }
    (good, bad)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Shard {
        let mut shard = Shard::default();
        for seed in 0..3 {
            shard.push_game(
                &GameRecord::random(Rules::othello(), seed),
                Provenance { model: 7, game: seed, worker: 99 },
            );
        }
        shard
    }

    /// Each row gives back the position its game record holds, white's turns included.
    #[test]
    fn rows_give_back_their_positions() {
        let mut shard = Shard::default();
        let record = GameRecord::random(Rules::othello(), 4);
        shard.push_game(&record, Provenance { model: 0, game: 4, worker: 0 });
        assert!(record.positions.iter().any(|r| r.position.side == Color::White));
        for (row, r) in record.positions.iter().enumerate() {
            assert_eq!(shard.position(row), r.position, "row {row}");
        }
    }

    #[test]
    fn shards_round_trip_and_damaged_ones_are_refused_by_name() {
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path();
        let shard = sample();
        let path = shard.write_atomic(dir, "a.npz").unwrap();
        assert_eq!(Shard::read(&path).unwrap(), shard);
        let bytes = std::fs::read(&path).unwrap();
        // Truncated, corrupted in the middle, and empty files.
        std::fs::write(dir.join("b-truncated.npz"), &bytes[..bytes.len() / 2]).unwrap();
        let mut flipped = bytes.clone();
        let mid = flipped.len() / 2;
        flipped[mid] ^= 0xff;
        std::fs::write(dir.join("c-corrupt.npz"), &flipped).unwrap();
        std::fs::write(dir.join("d-empty.npz"), b"").unwrap();
        std::fs::write(dir.join(".tmp-e.npz"), &bytes[..10]).unwrap(); // a writer's temporary file: ignored
        let (good, bad) = read_shards(dir);
        assert_eq!(good.len(), 1);
        assert_eq!(bad.len(), 3, "{bad:?}");
        for e in &bad {
            assert!(e.to_string().contains(".npz"), "{e}");
        }
    }

    #[test]
    fn rules_unpack_to_what_was_packed() {
        for text in ["othello", "reverse", "traditional", "othello,6x6,empties", "othello,4x4,mirror", "reverse,6x6"] {
            let rules: Rules = text.parse().unwrap();
            assert_eq!(unpack_rules(pack_rules(&rules)), rules, "{text}");
        }
    }

    #[test]
    fn invalid_contents_are_refused() {
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path();
        let mut shard = sample();
        shard.value[3] = 0.5;
        let path = shard.write_atomic(dir, "x.npz").unwrap();
        let e = Shard::read(&path).unwrap_err();
        assert!(e.problem.contains("position 3"), "{e}");
        let mut shard = sample();
        shard.opponent[0] |= shard.player[0];
        let path = shard.write_atomic(dir, "y.npz").unwrap();
        assert!(Shard::read(&path).unwrap_err().problem.contains("overlap"));
        for bad in [1.5, f32::NAN] {
            let mut shard = sample();
            shard.search_value[5] = bad;
            let path = shard.write_atomic(dir, "z.npz").unwrap();
            let e = Shard::read(&path).unwrap_err();
            assert!(e.problem.contains("position 5") && e.problem.contains("search value"), "{e}");
        }
    }

    /// A shard of the first schema (no `search_value`), written array by array as docs/ARCHITECTURE.md listed
    /// it, reads with the result as the search's value; an unknown version is refused.
    #[test]
    fn version_1_shards_read_with_the_result_as_the_search_value() {
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path();
        let shard = sample();
        let n = shard.len();
        let write = |version: u32, name: &str| {
            let path = dir.join(name);
            let mut npz = NpzWriter::new(File::create(&path).unwrap());
            npz.add_array("version", &Array1::from(vec![version])).unwrap();
            npz.add_array("player", &Array1::from(shard.player.clone())).unwrap();
            npz.add_array("opponent", &Array1::from(shard.opponent.clone())).unwrap();
            npz.add_array("side", &Array1::from(shard.side.clone())).unwrap();
            npz.add_array("ply", &Array1::from(shard.ply.clone())).unwrap();
            npz.add_array("rules", &Array1::from(shard.rules.clone())).unwrap();
            npz.add_array("policy", &Array2::from_shape_vec((n, POLICY_SIZE), shard.policy.clone()).unwrap()).unwrap();
            npz.add_array("value", &Array1::from(shard.value.clone())).unwrap();
            npz.add_array("margin", &Array1::from(shard.margin.clone())).unwrap();
            npz.add_array("ownership", &Array2::from_shape_vec((n, 64), shard.ownership.clone()).unwrap()).unwrap();
            for (name, column) in [("full_search", &shard.full_search), ("solved", &shard.solved)] {
                npz.add_array(name, &Array1::from(column.clone())).unwrap();
            }
            for (name, column) in [("model", &shard.model), ("game", &shard.game), ("worker", &shard.worker)] {
                npz.add_array(name, &Array1::from(column.clone())).unwrap();
            }
            npz.add_array("seed", &Array1::from(shard.seed.clone())).unwrap();
            npz.finish().unwrap();
            path
        };
        let old = Shard::read(&write(1, "v1.npz")).unwrap();
        assert_eq!(old.search_value, shard.value);
        assert_eq!(Shard { search_value: shard.search_value.clone(), ..old }, shard);
        let e = Shard::read(&write(7, "v7.npz")).unwrap_err();
        assert!(e.problem.contains("version [7]"), "{e}");
    }
}
