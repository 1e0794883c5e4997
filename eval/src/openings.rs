//! Balanced openings: positions a few plies in whose value is near even, so that an arena's pairs start from
//! varied, fair positions and deterministic players never replay one game. The repository ships a set for 8x8 and
//! one for 6x6 Othello (`eval/openings/`, each made by the `othello-zero openings` command in its header); other
//! rules fall back to seeded random plies.
//!
//! File format: one opening per line, a transcript (`f5d6c3`) and optionally its value for the side to move in
//! discs; `#` starts a comment.

use std::collections::HashSet;
use std::time::Duration;

use othello_core::solve::{Limits, Mode, Solver};
use othello_core::{Game, Move, Objective, Rules, Start, Status, Symmetry};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;
use thiserror::Error;

use othello_players::pattern_engine::{Budget, PatternEngine};

#[derive(Debug, Error, PartialEq)]
#[error("openings, line {line}: {message}")]
pub struct OpeningsError {
    pub line: usize,
    pub message: String,
}

/// A set of openings under one set of rules.
#[derive(Clone, Debug, PartialEq)]
pub struct Openings {
    pub rules: Rules,
    pub lines: Vec<Vec<Move>>,
}

const SHIPPED_8X8: &str = include_str!("../openings/8x8.txt");
const SHIPPED_6X6: &str = include_str!("../openings/6x6.txt");

impl Openings {
    /// Reads an openings file: every line's transcript must replay under `rules`.
    pub fn parse(text: &str, rules: Rules) -> Result<Openings, OpeningsError> {
        let mut lines = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let content = line.split('#').next().unwrap_or("").trim();
            let Some(transcript) = content.split_whitespace().next() else { continue };
            let err = |message: String| OpeningsError { line: i + 1, message };
            let game = Game::from_transcript(rules, transcript).map_err(|e| err(format!("'{transcript}': {e}")))?;
            if game.is_over() {
                return Err(err(format!("'{transcript}' ends the game")));
            }
            lines.push(game.moves().to_vec());
        }
        if lines.is_empty() {
            return Err(OpeningsError { line: 0, message: "no opening in the file".into() });
        }
        Ok(Openings { rules, lines })
    }

    /// The shipped balanced set for standard Othello on 8x8 or 6x6.
    pub fn shipped(rules: &Rules) -> Option<Openings> {
        if *rules != (Rules { size: rules.size, ..Rules::othello() }) {
            return None;
        }
        let text = match rules.size {
            8 => SHIPPED_8X8,
            6 => SHIPPED_6X6,
            _ => return None,
        };
        Openings::parse(text, *rules).ok()
    }

    /// The opening of pair `pair`: the set in a seeded order, so that `len` pairs use every opening once.
    pub fn pick(&self, seed: u64, pair: u64) -> &[Move] {
        let len = self.lines.len() as u64;
        // A seeded shuffle of the indices, recomputed per call: small sets, and no state to share across threads.
        let mut order: Vec<usize> = (0..self.lines.len()).collect();
        order.shuffle(&mut Pcg64Mcg::seed_from_u64(seed));
        &self.lines[order[(pair % len) as usize]]
    }
}

/// The canonical hash of a position: the least over the board's symmetries.
fn canonical(rules: &Rules, game: &Game) -> u64 {
    Symmetry::ALL.iter().map(|s| s.apply_position(game.position(), rules.size).hash()).min().unwrap_or(0)
}

/// Every distinct position `plies` moves in where the side to move has a move, sorted by transcript.
fn every_position(rules: &Rules, plies: u32) -> Vec<Game> {
    let mut seen = HashSet::new();
    let mut distinct = Vec::new();
    let mut stack = vec![Game::new(*rules)];
    while let Some(game) = stack.pop() {
        if game.moves().len() == plies as usize {
            if matches!(game.status(), Status::Moves(_)) && seen.insert(canonical(rules, &game)) {
                distinct.push(game);
            }
            continue;
        }
        let moves: Vec<Move> = match game.status() {
            Status::Moves(m) => m.map(Move::Play).collect(),
            Status::MustPass => vec![Move::Pass],
            Status::Over => continue,
        };
        for mv in moves {
            let mut next = game.clone();
            if next.push(mv).is_ok() {
                stack.push(next);
            }
        }
    }
    distinct.sort_by_key(|g| g.transcript());
    distinct
}

/// Up to `count` distinct positions `plies` moves in, reached by seeded random games (for depths where listing
/// every position would take too long), sorted by transcript.
fn sampled_positions(rules: &Rules, plies: u32, count: usize) -> Vec<Game> {
    let mut rng = Pcg64Mcg::seed_from_u64(1);
    let mut seen = HashSet::new();
    let mut distinct = Vec::new();
    for _ in 0..count.saturating_mul(20) {
        if distinct.len() == count {
            break;
        }
        let game = Game::random_plies(*rules, plies, &mut rng);
        let complete = game.moves().len() == plies as usize && matches!(game.status(), Status::Moves(_));
        if complete && seen.insert(canonical(rules, &game)) {
            distinct.push(game);
        }
    }
    distinct.sort_by_key(|g| g.transcript());
    distinct
}

/// How [`balanced`] values a position.
#[derive(Clone, Copy, Debug)]
pub enum Valuation {
    /// The pattern engine to this depth (8x8 Othello).
    Search(u32),
    /// The exact solver, giving up after this long (the position is then left out).
    Exact(Duration),
}

/// The distinct positions (up to the board's symmetries) `plies` moves from the start of `rules` (or `sample` of
/// them, reached by seeded random games) whose value for the side to move lies within `max_value` discs, as (transcript
/// moves, value), sorted by transcript. `on_valued` is called with the positions valued so far and the total.
pub fn balanced(
    rules: &Rules,
    plies: u32,
    max_value: f64,
    valuation: Valuation,
    sample: Option<usize>,
    mut on_valued: impl FnMut(usize, usize),
) -> Vec<(Vec<Move>, f64)> {
    let distinct = match sample {
        Some(n) => sampled_positions(rules, plies, n),
        None => every_position(rules, plies),
    };
    let total = distinct.len();
    let depth = match valuation {
        Valuation::Search(depth) => depth,
        Valuation::Exact(_) => 1,
    };
    let mut solver = Solver::new();
    let mut out = Vec::new();
    for (i, game) in distinct.into_iter().enumerate() {
        let value = match valuation {
            // A fresh table per position: a value that does not depend on the positions valued before it.
            Valuation::Search(_) => {
                PatternEngine::new(Budget::Depth(depth), Some(0)).search(rules, &game).ok().map(|s| s.value)
            }
            Valuation::Exact(limit) => solver
                .solve(rules, game.position(), Mode::Exact, Limits { time: Some(limit), nodes: None })
                .ok()
                .map(|s| s.score as f64),
        };
        on_valued(i + 1, total);
        if let Some(v) = value.filter(|v| v.abs() <= max_value) {
            out.push((game.moves().to_vec(), v));
        }
    }
    out
}

/// Whether the pattern engine can value positions under `rules`.
pub fn searchable(rules: &Rules) -> bool {
    rules.size == 8 && rules.objective == Objective::MostDiscs && rules.start != Start::EmptyCentre
}

/// The openings file text for `found`, with a header saying how it was made.
pub fn to_text(rules: &Rules, found: &[(Vec<Move>, f64)], how: &str) -> String {
    let mut text = format!(
        "# Balanced openings for {rules}: {} distinct positions (up to symmetry) whose value is near even.\n\
         # Made by: {how}\n# transcript, then the value for the side to move in discs\n",
        found.len()
    );
    for (moves, value) in found {
        let transcript: String = moves.iter().map(|m| m.to_string()).collect();
        text.push_str(&format!("{transcript} {value:+.2}\n"));
    }
    text
}

/// Where an arena's pairs start.
#[derive(Clone, Debug)]
pub enum OpeningSource {
    /// A set of openings, cycled through in a seeded order.
    Set(Openings),
    /// This many seeded random plies from the start.
    RandomPlies(u32),
}

/// Why openings named by the command line or Python cannot be had.
#[derive(Debug, Error)]
pub enum OpeningSourceError {
    #[error("{path}: {error}")]
    Read { path: String, error: std::io::Error },
    #[error("{path}: {error}")]
    Parse { path: String, error: OpeningsError },
    /// Random plies that end every game would be stored as games nobody played.
    #[error("{plies}: a game of {rules} has at most {most} moves (expected fewer)")]
    TooManyPlies { plies: u32, rules: Rules, most: u32 },
}

impl OpeningSource {
    /// The openings `name`s: `shipped` (the repository's set for the rules, else `plies` random plies), `random`
    /// (`plies` random plies), or an openings file's path.
    pub fn named(name: &str, plies: u32, rules: &Rules) -> Result<OpeningSource, OpeningSourceError> {
        let source = match name {
            "shipped" => OpeningSource::default_for(rules, plies),
            "random" => OpeningSource::RandomPlies(plies),
            path => {
                let read = |error| OpeningSourceError::Read { path: path.to_string(), error };
                let text = std::fs::read_to_string(path).map_err(read)?;
                let set = Openings::parse(&text, *rules)
                    .map_err(|error| OpeningSourceError::Parse { path: path.to_string(), error })?;
                OpeningSource::Set(set)
            }
        };
        let most = rules.empties(&rules.start_position());
        match source {
            OpeningSource::RandomPlies(plies) if plies >= most => {
                Err(OpeningSourceError::TooManyPlies { plies, rules: *rules, most })
            }
            source => Ok(source),
        }
    }

    /// The shipped balanced set for `rules` where there is one, else `plies` random plies.
    pub fn default_for(rules: &Rules, plies: u32) -> OpeningSource {
        Openings::shipped(rules).map_or(OpeningSource::RandomPlies(plies), OpeningSource::Set)
    }

    /// What the openings are, as an arena directory records them: the count and a fingerprint of a set's
    /// transcripts (so that another file of other openings differs), or the random plies.
    pub fn describe(&self) -> String {
        match self {
            OpeningSource::Set(set) => {
                let text: String = set.lines.iter().flatten().map(|mv| format!("{mv} ")).collect();
                format!("{} openings (fnv1a {:016x})", set.lines.len(), othello_run::fnv1a(&text))
            }
            OpeningSource::RandomPlies(plies) => format!("{plies} random plies"),
        }
    }

    /// The moves of pair `pair`'s opening.
    pub fn for_pair(&self, rules: &Rules, seed: u64, pair: u64) -> Vec<Move> {
        match self {
            OpeningSource::Set(set) => set.pick(seed, pair).to_vec(),
            OpeningSource::RandomPlies(plies) => crate::arena::opening(rules, seed, pair, *plies),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use othello_core::Position;

    /// The position an opening reaches.
    fn position_of(rules: &Rules, moves: &[Move]) -> Option<Position> {
        let mut game = Game::new(*rules);
        game.play_all(moves).ok()?;
        Some(*game.position())
    }

    /// The values written in a shipped file, in order.
    fn values(text: &str) -> Vec<f64> {
        text.lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .map(|l| l.split_whitespace().nth(1).unwrap().parse().unwrap())
            .collect()
    }

    /// Distinct up to symmetry.
    fn assert_distinct(rules: &Rules, set: &Openings) {
        let mut seen = HashSet::new();
        for moves in &set.lines {
            let pos = position_of(rules, moves).unwrap();
            let canonical = Symmetry::ALL.iter().map(|s| s.apply_position(&pos, rules.size).hash()).min().unwrap();
            assert!(seen.insert(canonical), "a position twice");
        }
    }

    /// The shipped 8x8 set replays, holds distinct positions up to symmetry, and its values are near even:
    /// re-valued here by the search the file names (depth 10), a sample agrees with the file.
    #[test]
    fn the_shipped_8x8_set_is_distinct_and_balanced() {
        let rules = Rules::othello();
        let set = Openings::shipped(&rules).expect("a shipped set");
        assert!(set.lines.len() >= 200, "{}", set.lines.len());
        assert_distinct(&rules, &set);
        assert!(SHIPPED_8X8.contains("--depth 10"));
        let values = values(SHIPPED_8X8);
        assert!(values.iter().all(|v| v.abs() <= 2.0));
        for (moves, value) in set.lines.iter().zip(&values).step_by(set.lines.len() / 4) {
            let game = Game::replay(rules, moves).unwrap();
            let searched = PatternEngine::new(Budget::Depth(10), Some(0)).search(&rules, &game).unwrap().value;
            assert!((searched - value).abs() < 0.01, "{moves:?}: {searched} against {value}");
        }
    }

    /// The shipped 6x6 set: distinct, and its values are the exact solver's (a sample solved again here).
    #[test]
    fn the_shipped_6x6_set_is_distinct_and_exactly_balanced() {
        let rules = Rules::othello().with_size(6).unwrap();
        let set = Openings::shipped(&rules).expect("a shipped set");
        assert!(set.lines.len() >= 50, "{}", set.lines.len());
        assert_distinct(&rules, &set);
        let values = values(SHIPPED_6X6);
        assert!(values.iter().all(|v| v.abs() <= 2.0));
        let mut solver = Solver::new();
        for (moves, value) in set.lines.iter().zip(&values).step_by(set.lines.len() / 4) {
            let pos = position_of(&rules, moves).unwrap();
            assert_eq!(solver.solve(&rules, &pos, Mode::Exact, Limits::default()).unwrap().score as f64, *value);
        }
        assert!(Openings::shipped(&Rules::othello().with_size(4).unwrap()).is_none());
    }

    #[test]
    fn pairs_cycle_through_the_set_in_a_seeded_order() {
        let rules = Rules::othello();
        let set = Openings::shipped(&rules).unwrap();
        let n = set.lines.len() as u64;
        let firsts: HashSet<&[Move]> = (0..n).map(|pair| set.pick(3, pair)).collect();
        assert_eq!(firsts.len() as u64, n, "every opening once per cycle");
        assert_eq!(set.pick(3, 5), set.pick(3, 5 + n));
        assert_ne!(
            (0..10).map(|p| set.pick(3, p)).collect::<Vec<_>>(),
            (0..10).map(|p| set.pick(4, p)).collect::<Vec<_>>()
        );
    }

    #[test]
    fn a_bad_file_names_its_line() {
        let rules = Rules::othello();
        let err = Openings::parse("# header\nf5d6\nf5a1\n", rules).unwrap_err();
        assert_eq!(err.line, 3);
        assert!(Openings::parse("# nothing\n", rules).is_err());
    }

    /// The generator on 4x4, where exact values are cheap: it keeps positions the solver puts within the bound,
    /// each once up to symmetry.
    #[test]
    fn the_generator_keeps_exactly_the_near_even_positions() {
        let rules = Rules { size: 4, ..Rules::othello() };
        let found = balanced(&rules, 3, 2.0, Valuation::Exact(Duration::from_secs(5)), None, |_, _| {});
        assert!(!found.is_empty());
        for (moves, value) in &found {
            let pos = position_of(&rules, moves).unwrap();
            let exact = othello_core::solve::solve(&rules, &pos).unwrap().score;
            assert_eq!(exact as f64, *value);
            assert!(value.abs() <= 2.0);
        }
        let distinct: HashSet<u64> = found
            .iter()
            .map(|(m, _)| {
                let pos = position_of(&rules, m).unwrap();
                Symmetry::ALL.iter().map(|s| s.apply_position(&pos, 4).hash()).min().unwrap()
            })
            .collect();
        assert_eq!(distinct.len(), found.len());
    }
}
