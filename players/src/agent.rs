//! The `Agent` trait: what every player, ours or an external engine, answers to.

use othello_core::{Game, Move, Rules, Status};
use thiserror::Error;

use crate::spec::SpecError;

#[derive(Debug, Error)]
pub enum AgentError {
    #[error("the game is over: no move to choose")]
    GameOver,
    #[error("{agent}: {message}")]
    Failed { agent: String, message: String },
    /// The spec's own error in the message, not as a source: the message is whole wherever it is shown.
    #[error("agent '{spec}': {problem}")]
    BadSpec { spec: String, problem: SpecError },
    #[error("agent '{spec}': {message}")]
    Spec { spec: String, message: String },
    #[error("{agent} plays only {own}, not {asked}")]
    OtherRules { agent: String, own: Rules, asked: Rules },
}

/// A player: given a game (rules, history, current position), chooses a legal move.
pub trait Agent {
    fn name(&self) -> String;
    /// A legal move in `game.position()` (a pass exactly when the rules force it).
    fn select_move(&mut self, game: &Game) -> Result<Move, AgentError>;
    /// The only rules the agent plays (a network's: those of the run that trained it), or None for any.
    fn rules(&self) -> Option<Rules> {
        None
    }
    /// Where an external program's standard error goes (the harness's own players print none).
    fn keep_stderr(&mut self, _log: crate::engine::StderrLog) {}
    /// The time on the agent's clock for its next move, as a front end keeps it (GTP's `time_left`, NBoard's game
    /// time): a player with a time control spends it; the others play as they always do.
    fn set_clock(&mut self, _clock: crate::thinking_time::Clock) {}
    /// An error unless the agent plays `rules` (by default, unless they are [`Agent::rules`] where it names any;
    /// an agent that plays a family of rules says so itself).
    fn check_rules(&self, rules: &Rules) -> Result<(), AgentError> {
        match self.rules() {
            Some(own) if own != *rules => Err(AgentError::OtherRules { agent: self.name(), own, asked: *rules }),
            _ => Ok(()),
        }
    }
}

impl Agent for Box<dyn Agent> {
    fn name(&self) -> String {
        (**self).name()
    }
    fn rules(&self) -> Option<Rules> {
        (**self).rules()
    }
    fn check_rules(&self, rules: &Rules) -> Result<(), AgentError> {
        (**self).check_rules(rules)
    }
    fn keep_stderr(&mut self, log: crate::engine::StderrLog) {
        (**self).keep_stderr(log)
    }
    fn set_clock(&mut self, clock: crate::thinking_time::Clock) {
        (**self).set_clock(clock)
    }
    fn select_move(&mut self, game: &Game) -> Result<Move, AgentError> {
        (**self).select_move(game)
    }
}

/// The move a game allows without thought: `Some(Move::Pass)` when the rules force a pass, `None` when there is a
/// choice; an error when the game is over.
pub(crate) fn forced_move(game: &Game) -> Result<Option<Move>, AgentError> {
    match game.status() {
        Status::Over => Err(AgentError::GameOver),
        Status::MustPass => Ok(Some(Move::Pass)),
        Status::Moves(_) => Ok(None),
    }
}

/// The legal moves of the side to move, or the forced pass.
pub(crate) fn choices(game: &Game) -> Result<Vec<Move>, AgentError> {
    match game.status() {
        Status::Over => Err(AgentError::GameOver),
        Status::MustPass => Ok(vec![Move::Pass]),
        Status::Moves(m) => Ok(m.map(Move::Play).collect()),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use othello_core::{Color, Rules};

    /// Plays a game between two agents; returns black's final margin.
    pub(crate) fn play(rules: Rules, black: &mut dyn Agent, white: &mut dyn Agent) -> i32 {
        let mut game = Game::new(rules);
        while !game.is_over() {
            let mv = match game.position().side {
                Color::Black => black.select_move(&game),
                Color::White => white.select_move(&game),
            }
            .unwrap();
            game.push(mv).expect("agents play legal moves");
        }
        game.outcome().margin_for(Color::Black)
    }

    /// The score (wins plus half the draws, per game) of agents made by `a` against agents made by `b` over `games`
    /// games, colours alternating, each game's agents seeded by its index.
    pub(crate) fn match_score(
        rules: Rules,
        a: &mut dyn FnMut(u64) -> Box<dyn Agent>,
        b: &mut dyn FnMut(u64) -> Box<dyn Agent>,
        games: u64,
    ) -> f64 {
        let mut points = 0.0;
        for i in 0..games {
            let (mut x, mut y) = (a(i), b(1000 + i));
            let margin = if i % 2 == 0 { play(rules, &mut *x, &mut *y) } else { -play(rules, &mut *y, &mut *x) };
            points += (margin.signum() as f64 + 1.0) / 2.0;
        }
        points / games as f64
    }
}
