//! `average`: the mean of several checkpoints' weights, written as one checkpoint.

use std::path::{Path, PathBuf};

use anyhow::{ensure, Context, Result};
use othello_net::checkpoint::checkpoint_stem;
use othello_net::{
    average_checkpoints, checkpoints_dir, list_checkpoints, read_info, resolve_checkpoint, save_checkpoint,
    DeviceChoice,
};

/// Average checkpoints' weights into one checkpoint in OUT (a stochastic weight average).
///
/// Batch-norm statistics included. A run's late checkpoints wander around a minimum with the noise of each step, and
/// their mean sits nearer it (docs/experiments/). Its sidecar is the newest's, naming the checkpoints averaged; play or
/// export it as any checkpoint (`net:model=OUT`).
#[derive(clap::Args)]
pub struct AverageArgs {
    /// Checkpoints (`model-<step>.json` or `.bpk`) of one architecture, or run or models directories (their newest
    /// --last).
    #[arg(required = true)]
    models: Vec<PathBuf>,
    /// From each directory among MODELS, its newest this many checkpoints.
    #[arg(long, value_parser = crate::flags::positive::<usize>, default_value_t = 8)]
    last: usize,
    /// A directory for the average (not a run's models: it would stand beside the checkpoints as trained).
    #[arg(long)]
    out: PathBuf,
}

pub fn average(a: AverageArgs) -> Result<()> {
    write_average(&a.models, a.last, &a.out)
}

fn write_average(models: &[PathBuf], last: usize, out: &Path) -> Result<()> {
    let mut paths = Vec::new();
    for model in models {
        if model.is_dir() {
            let all = list_checkpoints(&checkpoints_dir(model));
            ensure!(!all.is_empty(), "{}: no checkpoint there", model.display());
            paths.extend_from_slice(&all[all.len().saturating_sub(last)..]);
        } else {
            paths.push(resolve_checkpoint(model)?);
        }
    }
    let mut by_step = Vec::with_capacity(paths.len());
    for path in paths {
        by_step.push((read_info(&path)?.step, path));
    }
    by_step.sort();
    by_step.dedup();
    let newest = by_step.last().map_or(0, |(step, _)| *step);
    let paths: Vec<PathBuf> = by_step.into_iter().map(|(_, p)| p).collect();
    // Never among checkpoints as trained (a run's models): self-play would take the average for the newest, or
    // it would take a checkpoint's place. Checked before the averaging, which loads every checkpoint.
    let sidecar = out.join(format!("{}.json", checkpoint_stem(newest)));
    for existing in list_checkpoints(out) {
        ensure!(
            !read_info(&existing)?.averaged_from.is_empty() && existing != sidecar,
            "{} exists: give the average a directory of its own",
            existing.display()
        );
    }
    let (net, info) = average_checkpoints(&paths, &DeviceChoice::Flex.device()?)?;
    let written =
        save_checkpoint(out, &net, &info).with_context(|| format!("writing the average into {}", out.display()))?;
    eprintln!(
        "the mean of {} checkpoints ({} to {})",
        paths.len(),
        paths[0].display(),
        paths[paths.len() - 1].display()
    );
    outln!("{}", written.display());
    Ok(())
}
