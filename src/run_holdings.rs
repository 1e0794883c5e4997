//! What a run directory holds already, against its config: a run keeps one set of rules and one network shape for
//! its whole life, since its games, checkpoints and ratings all assume them. Every stage checks before it starts.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use othello_core::Rules;
use othello_run::shard::unpack_rules;
use othello_run::{RunDir, Shard};

use crate::run_config::RunConfig;

/// Refuses `config` (read from `origin`) where it differs from what `run` holds: checkpoints trained under other
/// rules or of another shape, replay shards of other rules.
pub fn check(run: &RunDir, config: &RunConfig, origin: &str) -> Result<()> {
    let rules = config.rules()?;
    let differs = |held: &str, what: &str, path: &Path| {
        anyhow::anyhow!(
            "config {origin}: {what}, but {} holds {held} ({}): a run keeps its rules and network for its whole \
             life; put the key back, or give the new setting a new run directory",
            run.root().display(),
            path.display()
        )
    };
    if let Some(path) = othello_net::newest_checkpoint(&run.models()) {
        let info = othello_net::read_info(&path)?;
        if let Some(trained) = info.training.as_ref() {
            let held: Rules = trained.rules.parse().with_context(|| format!("{}: rules", path.display()))?;
            if held != rules {
                let what = format!("rules = \"{}\"", config.rules);
                return Err(differs(&format!("checkpoints trained under {held}"), &what, &path));
            }
        }
        let expected = config.network.deepened(config.train.blocks_added_by(info.step));
        if info.architecture != expected {
            let what = format!("[network] makes {expected}");
            return Err(differs(&format!("checkpoints of {}", info.architecture), &what, &path));
        }
    }
    // The newest shard that reads (a damaged one is the stages' to report and skip). Its scoring may differ:
    // WTHOR's games, imported into 8x8 Othello runs, keep the empties-to-the-winner margins they were recorded with.
    let newest = shards_newest_first(&run.replay()).find_map(|p| Some((p.clone(), Shard::read(&p).ok()?)));
    if let Some((path, shard)) = newest {
        let held = shard.rules.first().map(|&packed| Rules { scoring: rules.scoring, ..unpack_rules(packed) });
        if let Some(held) = held.filter(|held| *held != rules) {
            return Err(differs(&format!("games of {held}"), &format!("rules = \"{}\"", config.rules), &path));
        }
    }
    Ok(())
}

/// Whether `run` holds games or checkpoints: then its config is part of it.
pub fn holds_anything(run: &RunDir) -> bool {
    othello_net::newest_checkpoint(&run.models()).is_some() || shards_newest_first(&run.replay()).next().is_some()
}

/// The replay shards, the last written first (files being written left out).
fn shards_newest_first(replay: &Path) -> impl Iterator<Item = PathBuf> {
    let entries = std::fs::read_dir(replay).into_iter().flatten().filter_map(|e| e.ok());
    let mut shards: Vec<_> = entries
        .filter(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            name.ends_with(".npz") && !name.starts_with('.')
        })
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .collect();
    shards.sort();
    shards.into_iter().rev().map(|(_, path)| path)
}
