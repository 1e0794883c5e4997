//! `import-wthor`: expert games as replay shards.

use std::path::PathBuf;

use anyhow::Result;
use othello_core::Rules;
use othello_run::RunDir;

use crate::run_config::RunConfig;

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
    /// Config file of a new run (an 8x8 Othello one, such as configs/8x8-cpu.toml); a run keeps its RUN/config.toml.
    #[arg(long)]
    config: Option<PathBuf>,
}

pub fn import_wthor(a: ImportWthorArgs) -> Result<()> {
    let run = RunDir::new(a.run);
    // A new run without --config would get the embedded 6x6 quickstart: refused below, before it is written.
    anyhow::ensure!(
        a.config.is_some() || run.config().exists(),
        "{}: a new run needs its config: give an 8x8 Othello one with --config (WTHOR games are 8x8 Othello)",
        run.root().display()
    );
    let config = RunConfig::for_run(&run, a.config.as_deref())?;
    let rules = config.rules()?;
    anyhow::ensure!(
        rules == Rules::othello(),
        "{} is a run of {rules}: WTHOR games are 8x8 Othello, and a run keeps one set of rules",
        run.root().display()
    );
    import_files(&a.files, &run, a.games_per_shard)
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
