//! Inputs the commands share: a position given on the command line, WTHOR files.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use othello_core::wthor::{WthorFile, WthorGame};
use othello_core::{Game, ParseError, Position, Rules};

/// The rules of a board of `size` squares a side: `rules` if given, whose size must be the board's (a board is not
/// silently played under other rules than those asked for), else Othello at the board's size.
pub fn rules_for_board(rules: Option<Rules>, size: u8) -> Result<Rules, ParseError> {
    match rules {
        Some(rules) if rules.size != size => Err(ParseError::BoardSize { size, rules_size: rules.size }),
        Some(rules) => Ok(rules),
        None => Rules::othello().with_size(size),
    }
}

/// A position given on the command line: a board string if it parses as one, else a transcript from the start.
pub fn parse_position(text: &str, rules: Option<Rules>) -> Result<(Position, Rules)> {
    let board_error = match Position::parse_board(text) {
        Ok((pos, size)) => return Ok((pos, rules_for_board(rules, size)?)),
        Err(e) => e,
    };
    // Both readings failed: say why for each, since either may be the one meant.
    let rules = rules.unwrap_or_default();
    match Game::from_transcript(rules, text) {
        Ok(game) => Ok((*game.position(), rules)),
        Err(e) => anyhow::bail!("'{text}' is neither a board string ({board_error}) nor a legal transcript ({e})"),
    }
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
