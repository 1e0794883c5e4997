//! One checkpoint's games: against the checkpoint rated before it, and against the ladder from the rung nearest
//! that checkpoint's Elo, spreading up and down until a sweep each way.

use std::collections::HashMap;
use std::path::Path;

use crate::arena::{rungs_to_play, schedule, sweep, ArenaDir, ResultRow};
use crate::events::Event;
use crate::matches::{play_scheduled, MatchSetup};
use crate::ratings::{fit, Ratings};
use crate::stage::StageError;
use othello_players::spec::AgentSpec;

/// What runs after each round of a gauntlet's games, given where to report.
pub(crate) type AfterRound<'a> = dyn FnMut(&mut dyn FnMut(Event)) -> Result<(), StageError> + 'a;

/// The fit of the games in `rows` between `players` only, anchored to the first game's black (None without games).
pub(crate) fn fit_among(rows: &[ResultRow], players: &[AgentSpec]) -> Option<Ratings<AgentSpec>> {
    let among: Vec<_> = rows
        .iter()
        .filter(|r| players.contains(&r.black) && players.contains(&r.white))
        .map(|r| r.as_game_result())
        .collect();
    among.first().and_then(|first| fit(&among, &first.black, 0.0).ok())
}

/// The ladder ordered by the Elo of its own round robin in `rows`, weakest first (as given where it has none).
pub(crate) fn weakest_first(rows: &[ResultRow], ladder: &[AgentSpec]) -> Vec<AgentSpec> {
    let mut order = ladder.to_vec();
    if let Some(fit) = fit_among(rows, ladder) {
        let elo = |spec: &AgentSpec| fit.get(spec).map_or(f64::NEG_INFINITY, |r| r.elo);
        order.sort_by(|a, b| elo(a).total_cmp(&elo(b)));
    }
    order
}

/// A checkpoint's gauntlet: the ladder from the rung nearest the checkpoint rated before it (the middle rung for
/// the first), spreading up and down until a sweep each way ([`rungs_to_play`]): a strong checkpoint plays no games
/// against random, which would tell nothing.
pub(crate) struct Gauntlet<'a> {
    pub spec: &'a AgentSpec,
    /// The ladder, weakest first.
    pub rungs: &'a [AgentSpec],
    pub games: u32,
}

impl Gauntlet<'_> {
    /// Plays the games not yet stored in `dir`. `met`: the ladder and the checkpoints rated before this one (the
    /// last is the one before it), whose games alone place the start, so that a resumed evaluation spreads as the
    /// first did. `after_round` runs after each round of games (a pairing or two at a time).
    pub fn play(
        &self,
        dir: &Path,
        met: &[AgentSpec],
        setup: &MatchSetup,
        on_event: &mut dyn FnMut(Event),
        after_round: &mut AfterRound,
    ) -> Result<(), StageError> {
        let arena = ArenaDir::new(dir);
        let mut rows = arena.read()?;
        let previous = met.last().filter(|p| !self.rungs.contains(p));
        let nearest_to_previous = previous.and_then(|previous| {
            let fit = fit_among(&rows, met)?;
            let at = fit.get(previous)?.elo;
            let elo = |i: usize| fit.get(&self.rungs[i]).map(|r| r.elo);
            let distance = |i: &usize| elo(*i).map_or(f64::INFINITY, |elo| (elo - at).abs());
            (0..self.rungs.len()).min_by(|a, b| distance(a).total_cmp(&distance(b)))
        });
        let start = nearest_to_previous.unwrap_or(self.rungs.len() / 2);
        let against =
            |opponent: &AgentSpec| schedule(&[opponent.clone(), self.spec.clone()], Some(self.spec), self.games);
        let mut todo = match previous {
            Some(previous) => against(previous)?,
            None => vec![],
        };
        loop {
            let by_key: HashMap<&str, &ResultRow> = rows.iter().map(|r| (r.key.as_str(), r)).collect();
            let mut outcomes = Vec::with_capacity(self.rungs.len());
            for rung in self.rungs {
                outcomes.push(sweep(&by_key, self.spec, rung, self.games)?);
            }
            for i in rungs_to_play(self.rungs.len(), start, |i| outcomes[i]) {
                todo.extend(against(&self.rungs[i])?);
            }
            todo.retain(|p| !by_key.contains_key(p.key.as_str()));
            if todo.is_empty() {
                return Ok(());
            }
            let mut opponents: Vec<&AgentSpec> = vec![];
            for p in &todo {
                let opponent = if p.black == *self.spec { &p.white } else { &p.black };
                if !opponents.contains(&opponent) {
                    opponents.push(opponent);
                }
            }
            on_event(Event::Against { player: self.spec, opponents: &opponents });
            play_scheduled(dir, &todo, setup, on_event)?;
            after_round(on_event)?;
            todo.clear();
            rows = arena.read()?;
        }
    }
}
