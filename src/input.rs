//! Inputs the commands share: a position given on the command line, WTHOR files.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use othello_core::wthor::{WthorFile, WthorGame};
use othello_core::{Game, Position, Rules};

/// A position given on the command line: a board string if it parses as one, else a transcript from the start.
pub fn parse_position(text: &str, rules: Option<Rules>) -> Result<(Position, Rules)> {
    let game = Game::from_text(text, rules)?;
    Ok((*game.position(), game.rules))
}

/// A WTHOR file, read and parsed; errors name it.
pub fn read_wthor(path: &Path) -> Result<WthorFile> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    WthorFile::parse(&bytes).with_context(|| path.display().to_string())
}

/// The games of WTHOR files, in order.
pub fn read_wthor_games(paths: &[PathBuf]) -> Result<Vec<WthorGame>> {
    let mut games = Vec::new();
    for path in paths {
        games.extend(read_wthor(path)?.games);
    }
    Ok(games)
}
