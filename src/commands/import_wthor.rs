//! `import-wthor`: expert games as replay shards.

use std::path::PathBuf;

use anyhow::Result;
use othello_run::RunDir;

/// Turn WTHOR game files into replay shards in RUN/replay (policy target: the move played; value: the result).
#[derive(clap::Args)]
pub struct ImportWthorArgs {
    /// WTHOR database files (.wtb).
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// The run directory.
    #[arg(long)]
    run: PathBuf,
    /// Games per replay shard.
    #[arg(long, value_parser = crate::flags::positive::<usize>, default_value_t = 500)]
    games_per_shard: usize,
}

pub fn import_wthor(a: ImportWthorArgs) -> Result<()> {
    import_files(&a.files, &RunDir::new(a.run), a.games_per_shard)
}

fn import_files(files: &[PathBuf], run: &RunDir, games_per_shard: usize) -> Result<()> {
    let report = othello_train::import::import_wthor(files, &run.replay(), games_per_shard)?;
    for skipped in &report.skipped {
        eprintln!("skipped {skipped}");
    }
    outln!(
        "{} games, {} positions in {} shards in {} ({} games skipped)",
        report.games,
        report.positions,
        report.shards.len(),
        run.replay().display(),
        report.skipped.len()
    );
    Ok(())
}
