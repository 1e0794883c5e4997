//! `agreement`: a network's moves against the moves of WTHOR's players.

use std::path::PathBuf;

use anyhow::Result;

use crate::flags::positive;
use crate::input::read_wthor_games;

/// How often a network's most probable move is the move WTHOR's players played.
///
/// Give games it was not trained on; with a 95% interval and a random legal move's rate beside it.
#[derive(clap::Args)]
pub struct AgreementArgs {
    /// A checkpoint, or a run directory (its newest checkpoint).
    #[arg(long)]
    model: String,
    /// WTHOR game files.
    #[arg(long, num_args = 1.., required = true)]
    wthor: Vec<PathBuf>,
    /// Use at most this many games (the files' first).
    #[arg(long, value_parser = positive::<usize>, default_value_t = 2000)]
    games: usize,
}

pub fn agreement(a: AgreementArgs) -> Result<()> {
    let path = othello_net::resolve_checkpoint(std::path::Path::new(&a.model))?;
    let device = othello_net::DeviceChoice::Flex.device()?;
    let (net, info) = othello_net::load_checkpoint(&path, None, &device)?;
    // WTHOR's games are 8x8 Othello: a network of other rules would be scored on a board it never saw.
    if let Some(trained) = &info.training {
        let rules: othello_core::Rules = trained.rules.parse()?;
        anyhow::ensure!(
            rules == othello_core::Rules::othello(),
            "{}: a network of {rules}; WTHOR's games are 8x8 Othello",
            path.display()
        );
    }
    let mut all = read_wthor_games(&a.wthor)?;
    all.truncate(a.games);
    anyhow::ensure!(!all.is_empty(), "no games in the WTHOR files");
    let result = othello_train::agreement::expert_agreement(&net, &device, &all);
    let (low, high) = othello_eval::ratings::proportion_interval(result.agreed, result.positions);
    outln!(
        "{} (step {}): {} positions of {} games: agreement {:.1}% (95%: {:.1}-{:.1}); a random legal move {:.1}%",
        path.display(),
        info.step,
        result.positions,
        all.len(),
        100.0 * result.rate(),
        100.0 * low,
        100.0 * high,
        100.0 * result.random_rate()
    );
    Ok(())
}
