//! `fit-eval`: the pattern evaluation fitted on WTHOR games (and exact labels), with its held-out error per phase
//! next to the shipped weights'.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use othello_core::pattern::fit;
use othello_core::pattern::label::LabelFile;
use othello_core::pattern::{PatternWeights, PHASE_WIDTH};

use crate::input::read_wthor;

/// Fit the pattern evaluation (the solver's move ordering) on WTHOR games.
///
/// Every 20th game is held out and the error on it printed per phase.
#[derive(clap::Args)]
pub struct FitEvalArgs {
    /// WTHOR game files.
    #[arg(num_args = 1.., required = true)]
    wthor: Vec<PathBuf>,
    /// Exact labels from `label-endgames`: the games' positions take their labels from the nearest exactly known
    /// position, and the other children join the training set.
    #[arg(long)]
    labels: Option<PathBuf>,
    /// Where to write the weights (the crate ships core/src/pattern/weights.bin).
    #[arg(long)]
    out: PathBuf,
    /// Passes over the training positions (1 or more: none would write untrained weights).
    #[arg(long, value_parser = crate::flags::positive::<u32>, default_value_t = 400)]
    epochs: u32,
    /// Ridge penalty in pseudo-samples per weight.
    #[arg(long, default_value_t = 16.0, value_parser = crate::flags::not_negative)]
    prior: f64,
}

pub fn fit_eval(a: FitEvalArgs) -> Result<()> {
    fit_weights(&a.wthor, a.labels.as_deref(), &a.out, a.epochs, a.prior)
}

fn fit_weights(wthor: &[PathBuf], labels: Option<&Path>, out: &Path, epochs: u32, prior: f64) -> Result<()> {
    let (mut train, mut held_out) = (Vec::new(), Vec::new());
    let mut exact = std::collections::HashMap::new();
    if let Some(path) = labels {
        let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
        let file = LabelFile::from_bytes(&bytes).with_context(|| path.display().to_string())?;
        for l in file.labels {
            if l.on_line {
                exact.insert((l.player, l.opponent), l.score);
            } else {
                // Positions off the games' lines: training samples of their own.
                train.push(vec![fit::Sample { player: l.player, opponent: l.opponent, score: l.score, exact: true }]);
            }
        }
    }
    let mut games = 0;
    for path in wthor {
        let file = read_wthor(path)?;
        let depth = file.header.theoretical_depth();
        for game in &file.games {
            games += 1;
            let set = if games % 20 == 0 { &mut held_out } else { &mut train };
            set.push(fit::wthor_samples(game, depth, &exact));
        }
    }
    let (train, held_out): (Vec<_>, Vec<_>) = (train.concat(), held_out.concat());
    anyhow::ensure!(!train.is_empty(), "no game in these files replays");
    eprintln!("{} training positions, {} held out", train.len(), held_out.len());
    let config = fit::FitConfig { epochs, prior, ..fit::FitConfig::default() };
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let weights = fit::fit(&train, config, threads, |phase, epoch, rmse| {
        if epoch % 50 == 0 || epoch == epochs {
            eprintln!("phase {phase} epoch {epoch}: training error {rmse:.2} discs");
        }
    });
    let (new, shipped) =
        (fit::phase_errors(&weights, &held_out), fit::phase_errors(PatternWeights::builtin(), &held_out));
    for (phase, (new, old)) in new.iter().zip(&shipped).enumerate().filter(|(_, (new, _))| new.all.count > 0) {
        let (lo, hi) = (phase as u32 * PHASE_WIDTH, (phase as u32 + 1) * PHASE_WIDTH - 1);
        outln!(
            "empties {lo:2}-{hi:2}: held-out error {:.2} discs (shipped weights {:.2}) on {} positions; \
             {:.2} ({:.2}) on the {} exactly labelled",
            new.all.rms(),
            old.all.rms(),
            new.all.count,
            new.exact.rms(),
            old.exact.rms(),
            new.exact.count
        );
    }
    othello_run::write_atomic(out, &weights.to_bytes()).with_context(|| format!("writing {}", out.display()))?;
    outln!("wrote {}", out.display());
    Ok(())
}
