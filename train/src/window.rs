//! The replay window: the shards of `RUN/replay` in the order they arrived, of which training samples the newest
//! `window` positions uniformly.

use std::collections::{HashSet, VecDeque};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use othello_run::{Shard, ShardError};
use rand::Rng;

/// Shards that arrived, oldest first, and how many positions arrived in all (evicted shards included).
pub struct ReplayWindow {
    dir: PathBuf,
    /// Every shard name looked at, good or bad: each is read once.
    seen: HashSet<OsString>,
    /// Kept shards with the arrival index of their first position.
    shards: VecDeque<(u64, Shard)>,
    arrived: u64,
}

/// What one look at the directory found.
#[derive(Debug, Default)]
pub struct Arrivals {
    pub shards: usize,
    pub positions: u64,
    /// Shards that failed validation, each reported once and never used.
    pub rejected: Vec<ShardError>,
}

impl ReplayWindow {
    pub fn new(dir: &Path) -> ReplayWindow {
        ReplayWindow { dir: dir.to_path_buf(), seen: HashSet::new(), shards: VecDeque::new(), arrived: 0 }
    }

    /// Positions that have arrived since the start of the run.
    pub fn arrived(&self) -> u64 {
        self.arrived
    }

    /// Positions still held (at least the window, at most one shard more).
    pub fn held(&self) -> u64 {
        self.shards.iter().map(|(_, s)| s.len() as u64).sum()
    }

    /// Reads the shards that appeared since the last look, in the order they were written (modification time,
    /// then name: shards of several workers interleave as they were produced, and a restarted trainer sees the
    /// same order).
    pub fn refresh(&mut self) -> Arrivals {
        let mut arrivals = Arrivals::default();
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return arrivals,
            Err(e) => {
                arrivals.rejected.push(ShardError { path: self.dir.clone(), problem: format!("listing: {e}") });
                return arrivals;
            }
        };
        let mut new: Vec<(SystemTime, OsString, PathBuf)> = entries
            .filter_map(|e| e.ok())
            .filter(|e| {
                let name = e.file_name();
                let name = name.to_string_lossy();
                name.ends_with(".npz") && !name.starts_with('.') && !self.seen.contains(&e.file_name())
            })
            .map(|e| {
                let modified = e.metadata().and_then(|m| m.modified()).unwrap_or(SystemTime::UNIX_EPOCH);
                (modified, e.file_name(), e.path())
            })
            .collect();
        new.sort();
        for (_, name, path) in new {
            self.seen.insert(name);
            match Shard::read(&path) {
                Ok(shard) if !shard.is_empty() => {
                    arrivals.shards += 1;
                    arrivals.positions += shard.len() as u64;
                    self.shards.push_back((self.arrived, shard));
                    self.arrived += self.shards.back().map_or(0, |(_, s)| s.len() as u64);
                }
                Ok(_) => {}
                Err(e) => arrivals.rejected.push(e),
            }
        }
        arrivals
    }

    /// Drops the shards that lie wholly outside the newest `window` positions.
    pub fn evict(&mut self, window: u64) {
        let first_kept = self.arrived.saturating_sub(window);
        while self.shards.front().is_some_and(|(start, s)| start + s.len() as u64 <= first_kept) {
            self.shards.pop_front();
        }
    }

    /// A position drawn uniformly from the newest `window` positions: its shard and row.
    pub fn sample(&self, window: u64, rng: &mut impl Rng) -> Option<(&Shard, usize)> {
        let window = window.min(self.arrived);
        if window == 0 {
            return None;
        }
        let index = self.arrived - window + rng.random_range(0..window);
        // The shard holding `index`: the last one starting at or before it.
        let k = self.shards.partition_point(|(start, _)| *start <= index).checked_sub(1)?;
        let (start, shard) = &self.shards[k];
        let row = (index - start) as usize;
        (row < shard.len()).then_some((shard, row))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use othello_core::Rules;
    use othello_run::Provenance;
    use othello_search::RolloutEvaluator;
    use othello_selfplay::{play_game, SelfPlayConfig};
    use rand::SeedableRng;

    fn shard_of_game(seed: u64) -> Shard {
        let config = SelfPlayConfig { sims: 8, ..Default::default() };
        let record = play_game(Rules::othello(), &mut RolloutEvaluator::new(seed, 1), &config, seed);
        let mut shard = Shard::default();
        shard.push_game(&record, Provenance { model: 0, game: seed, worker: 0 });
        shard
    }

    #[test]
    fn samples_come_only_from_the_newest_positions_and_bad_shards_are_reported_once() {
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path().to_path_buf();
        let mut window = ReplayWindow::new(&dir);
        assert_eq!(window.refresh().positions, 0, "a missing directory is no data, not an error");
        let mut lengths = vec![];
        for game in 0..3 {
            let shard = shard_of_game(game);
            lengths.push(shard.len() as u64);
            shard.write_atomic(&dir, &format!("s{game}.npz")).unwrap();
            // Distinct modification times give the arrival order.
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        std::fs::write(dir.join("bad.npz"), b"not a shard").unwrap();
        let arrivals = window.refresh();
        assert_eq!((arrivals.shards, arrivals.rejected.len()), (3, 1));
        assert!(arrivals.rejected[0].to_string().contains("bad.npz"));
        assert_eq!(window.refresh().rejected.len(), 0, "each shard is looked at once");
        let total: u64 = lengths.iter().sum();
        assert_eq!(window.arrived(), total);
        // A window of the last game's positions only samples the last shard (game 2).
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(1);
        for _ in 0..200 {
            let (shard, row) = window.sample(lengths[2], &mut rng).unwrap();
            assert_eq!(shard.game[row], 2);
        }
        window.evict(lengths[2] + 1);
        assert_eq!(window.held(), lengths[1] + lengths[2]);
        window.evict(lengths[2]);
        assert_eq!(window.held(), lengths[2]);
    }
}
