//! Matches between agents: the schedule (round robin or gauntlet, each opening played twice with the colours
//! swapped; a gauntlet spread over a ladder until it is won or lost whole), one game under the arena's rules (a
//! failing agent forfeits), and the arena directory that stores every game as it ends, so that a stopped arena
//! resumes with only the missing games and more agents can join later.
//!
//! The directory: `results.csv` (one row per game, appended and synced as each game ends), `games/<key>.ggf`
//! (each game's record, written atomically) and `engines.log` (external engines' standard error). A game is known by its key, `<first spec> vs <second spec> #<pair>
//! <colours>`, so adding agents leaves the other games' keys as they were.

mod dir;
mod game;
mod schedule;

use std::path::{Path, PathBuf};

use thiserror::Error;

use othello_players::agent::AgentError;

pub(crate) use dir::{csv_line, csv_rows};
pub use dir::{
    default_anchor, name_checkpoints_under, pair_cluster, ArenaDir, ArenaSetup, RatedPlayer, RatingsTable, ResultRow,
};
pub use game::{opening, play, Ending, Played};
pub use schedule::{rungs_to_play, schedule, sweep, Pairing, Sweep};

/// The columns of `results.csv`.
pub const COLUMNS: [&str; 13] = [
    "key",
    "pair",
    "black",
    "white",
    "opening",
    "black_discs",
    "white_discs",
    "black_score",
    "ending",
    "reason",
    "moves",
    "black_seconds",
    "white_seconds",
];

#[derive(Debug, Error)]
pub enum ArenaError {
    #[error("{}: {problem}", path.display())]
    File { path: PathBuf, problem: String },
    #[error("{}, line {line}: {problem}", path.display())]
    Row { path: PathBuf, line: usize, problem: String },
    #[error(transparent)]
    Agent(#[from] AgentError),
    #[error("an arena needs at least two agents")]
    TooFewAgents,
    #[error("the opening does not replay: {0}")]
    Opening(String),
    #[error("the opening {0} ends the game: no agent would move (ask for fewer --opening-plies)")]
    OpeningEndsGame(String),
    #[error(
        "{}: its games were played under {held}; these would be under {asked}: give them another directory",
        path.display()
    )]
    OtherSetup { path: PathBuf, held: String, asked: String },
    #[error("{}: {problem}", path.display())]
    Io { path: PathBuf, problem: std::io::Error },
    #[error("{0}: no games stored yet")]
    NoGames(String),
    #[error("rating the games of {0}: {1}")]
    Ratings(String, crate::ratings::RatingsError),
    #[error("the candidate and the baseline are the same agent")]
    SameAgent,
    #[error(transparent)]
    Solve(#[from] othello_core::solve::SolveError),
    #[error(transparent)]
    Lock(#[from] othello_run::LockError),
    #[error(
        "{} holds games of {held}, {} games of {other}: players are rated together only under one set of rules",
        first.display(), second.display()
    )]
    MixedRules { first: PathBuf, held: String, second: PathBuf, other: String },
}

impl ArenaError {
    pub(crate) fn io(path: &Path, source: std::io::Error) -> ArenaError {
        ArenaError::Io { path: path.to_path_buf(), problem: source }
    }
}

/// Agent specs from their text, for the tests.
#[cfg(test)]
pub(crate) fn specs(names: &[&str]) -> Vec<othello_players::AgentSpec> {
    names.iter().map(|s| s.parse().expect("a valid spec")).collect()
}
