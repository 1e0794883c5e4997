//! The game-engine commands: perft, replay, show.

use std::path::Path;

use anyhow::Result;
use othello_core::perft::perft_with;
use othello_core::{Convention, KernelKind, Rules};

pub fn perft(depth: u32, convention: Convention, rules: &Rules, kernel: Option<KernelKind>) -> Result<()> {
    let kernel = kernel.unwrap_or_else(KernelKind::best);
    println!("{}", perft_with(kernel, rules, &rules.start_position(), depth, convention));
    Ok(())
}

pub fn replay(_file: Option<&Path>, _ggf: bool, _wthor: &[std::path::PathBuf], _rules: Rules) -> Result<()> {
    todo!()
}

pub fn show(_position: &str, _rules: Rules) -> Result<()> {
    todo!()
}
