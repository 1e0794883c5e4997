//! `import-wthor`: expert games as replay shards.

use std::path::PathBuf;

use anyhow::Result;
use othello_run::RunDir;

pub fn run(files: &[PathBuf], run: &RunDir, games_per_shard: usize) -> Result<()> {
    let report = othello_train::import::import_wthor(files, &run.replay(), games_per_shard)?;
    for skipped in &report.skipped {
        eprintln!("skipped {skipped}");
    }
    println!(
        "{} games, {} positions in {} shards in {} ({} games skipped)",
        report.games,
        report.positions,
        report.shards.len(),
        run.replay().display(),
        report.skipped.len()
    );
    Ok(())
}
