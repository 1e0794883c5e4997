//! The `Agent` trait and the baseline agents.

use othello_core::solve::{Limits, Mode, Solver};
use othello_core::{Game, Move, Rules, Status};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;
use thiserror::Error;

use crate::spec::{AgentKind, AgentSpec, PatternBudget, SpecError};

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
    /// An error unless the agent plays `rules`.
    fn check_rules(&self, rules: &Rules) -> Result<(), AgentError> {
        match self.rules() {
            Some(own) if own != *rules => Err(AgentError::OtherRules { agent: self.name(), own, asked: *rules }),
            _ => Ok(()),
        }
    }
}

/// Makes the agent of `spec` once, to refuse a bad spec, or one that does not play `rules`, before any game.
pub fn check_spec(spec: &str, rules: &Rules) -> Result<(), AgentError> {
    agent_from_spec(spec, 0)?.check_rules(rules)
}

impl Agent for Box<dyn Agent> {
    fn name(&self) -> String {
        (**self).name()
    }
    fn rules(&self) -> Option<Rules> {
        (**self).rules()
    }
    fn keep_stderr(&mut self, log: crate::engine::StderrLog) {
        (**self).keep_stderr(log)
    }
    fn select_move(&mut self, game: &Game) -> Result<Move, AgentError> {
        (**self).select_move(game)
    }
}

/// An agent from its spec (see [`AgentSpec`]): a bad spec is an error naming the part at fault and what is known.
pub fn agent_from_spec(spec: &str, seed: u64) -> Result<Box<dyn Agent>, AgentError> {
    let parsed: AgentSpec = spec.parse().map_err(|problem| AgentError::BadSpec { spec: spec.to_string(), problem })?;
    parsed.agent(seed)
}

impl AgentSpec {
    /// Makes the agent, seeded with `seed`; a model that does not load or an engine command that does not split
    /// is an error.
    pub fn agent(&self, seed: u64) -> Result<Box<dyn Agent>, AgentError> {
        use crate::engine::{grhino, EngineAgent, Protocol, DEFAULT_NBOARD_DEPTH};
        use crate::pattern_engine::{Budget, PatternEngine};
        let name = self.base().to_string();
        let device = |d: &Option<othello_net::DeviceChoice>| d.unwrap_or_default();
        let inner: Box<dyn Agent> = match &self.kind {
            AgentKind::Random => Box::new(RandomAgent::new(seed)),
            AgentKind::Greedy => Box::new(GreedyAgent::new(seed)),
            AgentKind::Positional { depth } => {
                Box::new(crate::positional::PositionalAgent::new(depth.unwrap_or(4), seed))
            }
            AgentKind::Pattern { budget, exact } => {
                let budget = match budget {
                    Some(PatternBudget::Time(t)) => Budget::Time(std::time::Duration::from_secs_f64(*t)),
                    Some(PatternBudget::Depth(d)) => Budget::Depth(*d),
                    None => Budget::Depth(6),
                };
                Box::new(PatternEngine::new(budget, *exact))
            }
            AgentKind::Mcts { sims } => {
                Box::new(crate::rollout_mcts::RolloutMctsAgent::new(sims.unwrap_or(1000), seed))
            }
            AgentKind::Policy { model, temperature, device: d } => {
                let temperature = temperature.unwrap_or(0.0);
                Box::new(crate::network_agent::PolicyAgent::new(name, model, temperature, device(d), seed)?)
            }
            AgentKind::Net { model, search, device: d } => {
                Box::new(crate::network_agent::NetworkMctsAgent::new(name, model, search.clone(), device(d), seed)?)
            }
            AgentKind::Engine { cmd, protocol, depth, time } => {
                let engine = EngineAgent::new(name, cmd, *protocol, time.limits(EngineAgent::default_move_time(cmd)))
                    .map_err(|message| AgentError::Spec { spec: self.to_string(), message })?;
                Box::new(engine.with_nboard_depth(depth.unwrap_or(DEFAULT_NBOARD_DEPTH)))
            }
            AgentKind::Grhino { level, cmd, time } => {
                let program = match cmd {
                    Some(cmd) => cmd.clone(),
                    None => match grhino::find() {
                        Some(found) => found.display().to_string(),
                        None => {
                            let message = self.missing_program().unwrap_or_default();
                            return Err(AgentError::Spec { spec: self.to_string(), message });
                        }
                    },
                };
                let limits = time.limits(grhino::move_time(*level));
                let engine = EngineAgent::new(name, &grhino::command(&program, *level), Protocol::Gtp, limits)
                    .map_err(|message| AgentError::Spec { spec: self.to_string(), message })?;
                Box::new(engine.playing_only(Rules::othello()))
            }
        };
        Ok(match self.endgame {
            Some(k) => Box::new(EndgameAgent::new(inner, k, seed)),
            None => inner,
        })
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
fn choices(game: &Game) -> Result<Vec<Move>, AgentError> {
    match game.status() {
        Status::Over => Err(AgentError::GameOver),
        Status::MustPass => Ok(vec![Move::Pass]),
        Status::Moves(m) => Ok(m.map(Move::Play).collect()),
    }
}

/// Uniformly random legal moves, seeded.
pub struct RandomAgent {
    rng: Pcg64Mcg,
}

impl RandomAgent {
    pub fn new(seed: u64) -> RandomAgent {
        RandomAgent { rng: Pcg64Mcg::seed_from_u64(seed) }
    }
}

impl Agent for RandomAgent {
    fn name(&self) -> String {
        "random".into()
    }
    fn select_move(&mut self, game: &Game) -> Result<Move, AgentError> {
        let moves = choices(game)?;
        Ok(moves[self.rng.random_range(0..moves.len())])
    }
}

/// The move that flips the most discs; ties broken at random (seeded).
pub struct GreedyAgent {
    rng: Pcg64Mcg,
}

impl GreedyAgent {
    pub fn new(seed: u64) -> GreedyAgent {
        GreedyAgent { rng: Pcg64Mcg::seed_from_u64(seed) }
    }
}

impl Agent for GreedyAgent {
    fn name(&self) -> String {
        "greedy".into()
    }
    fn select_move(&mut self, game: &Game) -> Result<Move, AgentError> {
        let moves = choices(game)?;
        let pos = game.position();
        let flips = |m: &Move| match m {
            Move::Play(sq) => pos.flips(*sq).count(),
            Move::Pass => 0,
        };
        let most = moves.iter().map(flips).max().unwrap_or(0);
        let best: Vec<Move> = moves.into_iter().filter(|m| flips(m) == most).collect();
        Ok(best[self.rng.random_range(0..best.len())])
    }
}

/// Any agent, plus perfect play once at most `empties` squares are empty: the exact solver picks among the best
/// moves (at random, seeded, so that games stay varied). Falls back to the inner agent when the solver fails
/// (a position it refuses, such as the opening of traditional Reversi).
pub struct EndgameAgent<A> {
    inner: A,
    empties: u32,
    solver: Solver,
    rng: Pcg64Mcg,
}

impl<A: Agent> EndgameAgent<A> {
    pub fn new(inner: A, empties: u32, seed: u64) -> EndgameAgent<A> {
        EndgameAgent { inner, empties, solver: Solver::new(), rng: Pcg64Mcg::seed_from_u64(seed) }
    }
}

impl<A: Agent> Agent for EndgameAgent<A> {
    fn name(&self) -> String {
        format!("{}+endgame{}", self.inner.name(), self.empties)
    }
    fn rules(&self) -> Option<Rules> {
        self.inner.rules()
    }
    fn keep_stderr(&mut self, log: crate::engine::StderrLog) {
        self.inner.keep_stderr(log)
    }
    fn select_move(&mut self, game: &Game) -> Result<Move, AgentError> {
        let pos = game.position();
        let empties = game.rules.empties(pos);
        if empties <= self.empties {
            if let Ok(solution) = self.solver.solve(&game.rules, pos, Mode::Exact, Limits::default()) {
                if !solution.best_moves.is_empty() {
                    return Ok(solution.best_moves[self.rng.random_range(0..solution.best_moves.len())]);
                }
            }
        }
        self.inner.select_move(game)
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

    #[test]
    fn the_same_seed_gives_the_same_games() {
        let rules = Rules::othello();
        let a = play(rules, &mut RandomAgent::new(1), &mut GreedyAgent::new(2));
        let b = play(rules, &mut RandomAgent::new(1), &mut GreedyAgent::new(2));
        assert_eq!(a, b);
    }

    /// Perfect play over the last 14 empties turns random games into wins: a real effect, measured in a match
    /// with colours alternated.
    #[test]
    fn a_perfect_endgame_beats_the_same_agent_without_it() {
        let rules = Rules::othello();
        let (mut wins, mut losses, games) = (0, 0, 200);
        for i in 0..games {
            let mut perfect = EndgameAgent::new(RandomAgent::new(i), 14, i);
            let mut plain = RandomAgent::new(1000 + i);
            let margin =
                if i % 2 == 0 { play(rules, &mut perfect, &mut plain) } else { -play(rules, &mut plain, &mut perfect) };
            wins += (margin > 0) as u32;
            losses += (margin < 0) as u32;
        }
        assert!(wins > 3 * losses, "{wins} wins, {losses} losses");
    }

    #[test]
    fn specs_build_their_agents_and_bad_ones_name_the_part_at_fault() {
        for (spec, name) in [
            ("random", "random"),
            ("greedy+endgame12", "greedy+endgame12"),
            ("positional", "positional:depth=4"),
            ("positional:depth=2+endgame10", "positional:depth=2+endgame10"),
            ("mcts:sims=50", "mcts:sims=50"),
            ("pattern", "pattern:depth=6"),
            ("pattern:time=0.25+endgame20", "pattern:time=0.25+endgame20"),
        ] {
            assert_eq!(agent_from_spec(spec, 1).unwrap().name(), name);
        }
        for (spec, part) in [
            ("minimax", "'minimax'"),
            ("positional:depth=0", "depth=0"),
            ("positional:depht=3", "'depht'"),
            ("positional:depth=2,depth=3", "'depth' is given twice"),
            ("random:depth=2", "takes no parameters"),
            ("greedy+endgam14", "'+endgam14'"),
            ("positional:=3", "'=3'"),
            ("pattern:depth=3,time=1", "not both"),
            ("pattern:time=-1", "time=-1"),
            ("policy", "needs model="),
            ("net:model=\"/no/such/run\",sims=10", "/no/such/run"),
            ("net:model=x,gumbel=1", "gumbel=1"),
            ("net:model=x,score=-1", "score=-1"),
            ("net:model=x,qscale=0", "qscale=0"),
            ("net:model=x,qrescale=yes", "qrescale=yes"),
            ("net:model=x,interior=pucct", "interior=pucct"),
            ("engine:cmd=\"a b\",protocol=uci", "protocol=uci"),
            ("engine:cmd=\"a b,protocol=gtp", "unclosed quote"),
        ] {
            let err = agent_from_spec(spec, 1).err().expect("a bad spec").to_string();
            assert!(err.contains(spec) && err.contains(part), "{spec}: {err}");
        }
    }
}
