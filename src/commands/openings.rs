//! `openings`: makes a balanced openings file (every distinct position a few plies in whose value is near even).

use std::path::Path;
use std::time::Duration;

use anyhow::{Context, Result};
use othello_core::Rules;
use othello_eval::openings::{balanced, searchable, to_text, Valuation};
use othello_run::atomic::write_atomic;

use crate::progress::ProgressDisplay;

/// Write a balanced openings file.
///
/// It holds every distinct position (up to symmetry) PLIES moves from the start whose value is within MAX_VALUE discs
/// of even (valued by the pattern engine on 8x8 Othello, else exactly).
#[derive(clap::Args)]
pub struct OpeningsArgs {
    #[arg(long, default_value = "othello", help = crate::flags::rules_help!(""))]
    rules: Rules,
    /// Moves from the start.
    #[arg(long, default_value_t = 6)]
    plies: u32,
    /// The largest value kept, in discs either way.
    #[arg(long, default_value_t = 2.0, value_parser = crate::flags::not_negative)]
    max_value: f64,
    /// The pattern engine's depth.
    #[arg(long, default_value_t = 10)]
    depth: u32,
    /// The exact solver's time per position (positions it cannot solve in time are left out).
    #[arg(long, default_value = "10", value_parser = crate::flags::seconds)]
    seconds: Duration,
    /// Reach this many distinct positions by seeded random games instead of listing every one (for deep openings,
    /// where the list is too long to value).
    #[arg(long)]
    sample: Option<usize>,
    /// The openings file to write.
    #[arg(long)]
    out: std::path::PathBuf,
}

pub fn openings(a: OpeningsArgs) -> Result<()> {
    let (rules, plies, max_value, depth, seconds, sample) =
        (a.rules, a.plies, a.max_value, a.depth, a.seconds, a.sample);
    write_openings(OpeningsOptions { rules, plies, max_value, depth, seconds, sample, out: &a.out })
}

/// How `openings` finds and values its positions.
pub struct OpeningsOptions<'a> {
    pub rules: Rules,
    pub plies: u32,
    pub max_value: f64,
    pub depth: u32,
    pub seconds: Duration,
    pub sample: Option<usize>,
    pub out: &'a Path,
}

fn write_openings(o: OpeningsOptions) -> Result<()> {
    let OpeningsOptions { rules, plies, max_value, depth, seconds, sample, out } = o;
    let valuation = if searchable(&rules) { Valuation::Search(depth) } else { Valuation::Exact(seconds) };
    let mut display = ProgressDisplay::new(Some(0), "positions valued");
    let found = balanced(&rules, plies, max_value, valuation, sample, |done, total| {
        let per_second = done as f64 / display.elapsed().as_secs_f64().max(1e-9);
        display.set(done as u64, Some(total as u64), &format!("{per_second:.1}/s"));
    });
    display.clear();
    let sampled = sample.map_or(String::new(), |n| format!(" --sample {n}"));
    let how = match valuation {
        Valuation::Search(d) => format!(
            "othello-zero openings --rules {rules} --plies {plies} --max-value {max_value}{sampled} --depth {d} \
             (the pattern engine's value)"
        ),
        Valuation::Exact(limit) => format!(
            "othello-zero openings --rules {rules} --plies {plies} --max-value {max_value}{sampled} --seconds {} \
             (exact values)",
            limit.as_secs_f64()
        ),
    };
    anyhow::ensure!(!found.is_empty(), "no position within {max_value} discs of even");
    write_atomic(out, to_text(&rules, &found, &how).as_bytes())
        .with_context(|| format!("writing {}", out.display()))?;
    eprintln!("{} openings written to {}", found.len(), out.display());
    Ok(())
}
