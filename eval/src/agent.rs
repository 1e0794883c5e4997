//! The `Agent` trait and the baseline agents.

use othello_core::solve::{Limits, Mode, Solver};
use othello_core::{Game, Move, Rules, Status};
use othello_selfplay::mcts::InteriorSelection;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;
use thiserror::Error;

#[derive(Debug, Error)]
pub enum AgentError {
    #[error("the game is over: no move to choose")]
    GameOver,
    #[error("{agent}: {message}")]
    Failed { agent: String, message: String },
    #[error("agent '{spec}': {message}")]
    Spec { spec: String, message: String },
    #[error("{agent} plays only {own} (its checkpoint's rules), not {asked}")]
    OtherRules { agent: String, own: Rules, asked: Rules },
}

/// The largest weight a search gives the disc margin beside the result: `score=` in a `net:` spec, and the configs'
/// `score_utility` keys.
pub const MAX_SCORE_UTILITY: f32 = 10.0;

/// The largest Gumbel value scale a `net:` player takes (`qscale=`).
const MAX_GUMBEL_Q_SCALE: f32 = 1000.0;

/// A player: given a game (rules, history, current position), chooses a legal move.
pub trait Agent {
    fn name(&self) -> String;
    /// A legal move in `game.position()` (a pass exactly when the rules force it).
    fn select_move(&mut self, game: &Game) -> Result<Move, AgentError>;
    /// The only rules the agent plays (a network's: those of the run that trained it), or None for any.
    fn rules(&self) -> Option<Rules> {
        None
    }
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
    fn select_move(&mut self, game: &Game) -> Result<Move, AgentError> {
        (**self).select_move(game)
    }
}

/// An agent from its spec: `NAME[:KEY=VALUE,...][+endgameK]` (a value holding commas or spaces in double
/// quotes).
///
/// - `random`, `greedy` (most flips);
/// - `positional:depth=N`: alpha-beta to N plies on square weights and mobility (default depth 4);
/// - `pattern:depth=N` or `pattern:time=S` (seconds per move), `[,exact=K]`: principal variation search on the
///   WTHOR-fitted pattern evaluation, exact from K empties (8x8 Othello only; default depth 6);
/// - `mcts:sims=N`: pure Monte-Carlo tree search with random rollouts, N simulations per move (default 1000);
/// - `policy:model=M[,temperature=T][,device=D]`: a network's raw policy (the best legal move, or sampled);
/// - `net:model=M[,sims=N][,gumbel[=K]][,score=W][,qscale=C][,qrescale][,interior=I][,device=D]`: the network with MCTS
///   (PUCT, or Gumbel AlphaZero's root with K considered moves, without Gumbel draws), no root noise, the tree kept
///   between moves (default 200 simulations); `score` weighs the predicted disc margin beside the result (the
///   search's `score_utility`, default 0); `qscale` is Gumbel's c_scale (`gumbel_q_scale`, default 1); `qrescale`
///   rescales Gumbel's values by their least and greatest (`gumbel_q_rescale`); `interior`
///   the choice below the root, `puct` (default) or `gumbel` (Gumbel MuZero's); `model` is a checkpoint or a run
///   directory (its newest checkpoint);
/// - `engine:cmd="PROGRAM ARGS",protocol=nboard|gtp[,time=S][,startup=S]`: an external program, S seconds a move
///   (default 10) and its first move `startup` seconds more (default 20, for loading its tables); misbehaviour
///   (over its time, a malformed reply, a closed pipe, an illegal move, a flood of output) forfeits;
/// - `+endgameK` after any of them: perfect play once at most K squares are empty.
///
/// A bad spec is an error naming the part at fault and what is known.
pub fn agent_from_spec(spec: &str, seed: u64) -> Result<Box<dyn Agent>, AgentError> {
    let bad = |message: String| AgentError::Spec { spec: spec.to_string(), message };
    let (base, endgame) = match split_outside_quotes(spec, '+').as_slice() {
        [base] => (*base, None),
        [base, extra] => {
            let k = extra.strip_prefix("endgame").and_then(|k| k.parse::<u32>().ok());
            (*base, Some(k.ok_or_else(|| bad(format!("'+{extra}' is not +endgameK, e.g. +endgame14")))?))
        }
        _ => return Err(bad("more than one '+' suffix".into())),
    };
    let (name, params) = match base.split_once(':') {
        Some((name, params)) => (name, Params::parse(params).map_err(bad)?),
        None => (base, Params::default()),
    };
    let allow = |known: &[&str]| -> Result<(), AgentError> {
        match params.0.iter().find(|(k, _)| !known.contains(&k.as_str())) {
            Some((k, _)) if known.is_empty() => Err(bad(format!("'{name}' takes no parameters (got '{k}')"))),
            Some((k, _)) => Err(bad(format!("'{name}' has no parameter '{k}' (known: {})", known.join(", ")))),
            None => Ok(()),
        }
    };
    let number = |key: &str, default: u32, range: std::ops::RangeInclusive<u32>| -> Result<u32, AgentError> {
        match params.get(key) {
            None => Ok(default),
            Some(v) => v.parse::<u32>().ok().filter(|n| range.contains(n)).ok_or_else(|| {
                bad(format!("{key}={v}: expected a whole number from {} to {}", range.start(), range.end()))
            }),
        }
    };
    // A real parameter from 0 to `max` (default 0).
    let up_to = |key: &str, max: f32| -> Result<f32, AgentError> {
        match params.get(key) {
            None => Ok(0.0),
            Some(v) => v
                .parse::<f32>()
                .ok()
                .filter(|x| (0.0..=max).contains(x))
                .ok_or_else(|| bad(format!("{key}={v}: expected a number from 0 to {max}"))),
        }
    };
    let seconds = |key: &str| -> Result<Option<std::time::Duration>, AgentError> {
        params
            .get(key)
            .map(|v| {
                v.parse::<f64>()
                    .ok()
                    .filter(|s| *s > 0.0 && *s <= 86_400.0)
                    .map(std::time::Duration::from_secs_f64)
                    .ok_or_else(|| bad(format!("{key}={v}: expected seconds, more than 0")))
            })
            .transpose()
    };
    let required = |key: &str| -> Result<&str, AgentError> {
        params.get(key).ok_or_else(|| bad(format!("'{name}' needs {key}=...")))
    };
    let device = || -> Result<othello_net::DeviceChoice, AgentError> {
        params.get("device").map_or(Ok(othello_net::DeviceChoice::Flex), |d| d.parse().map_err(|e| bad(format!("{e}"))))
    };
    let inner: Box<dyn Agent> = match name {
        "random" => {
            allow(&[])?;
            Box::new(RandomAgent::new(seed))
        }
        "greedy" => {
            allow(&[])?;
            Box::new(GreedyAgent::new(seed))
        }
        "positional" => {
            allow(&["depth"])?;
            Box::new(crate::positional::PositionalAgent::new(number("depth", 4, 1..=12)?, seed))
        }
        "pattern" => {
            use crate::pattern_engine::{Budget, PatternEngine};
            allow(&["depth", "time", "exact"])?;
            let budget = match (params.get("depth"), seconds("time")?) {
                (Some(_), Some(_)) => return Err(bad("give depth or time, not both".into())),
                (_, Some(t)) => Budget::Time(t),
                _ => Budget::Depth(number("depth", 6, 1..=40)?),
            };
            let exact = params.get("exact").map(|_| number("exact", 0, 0..=30)).transpose()?;
            Box::new(PatternEngine::new(budget, exact))
        }
        "mcts" => {
            allow(&["sims"])?;
            Box::new(crate::rollout_mcts::RolloutMctsAgent::new(number("sims", 1000, 1..=10_000_000)?, seed))
        }
        "policy" => {
            allow(&["model", "temperature", "device"])?;
            let temperature = up_to("temperature", 10.0)?;
            let name = base.to_string();
            Box::new(crate::network_agent::PolicyAgent::new(name, required("model")?, temperature, device()?, seed)?)
        }
        "net" => {
            allow(&["model", "sims", "gumbel", "score", "qscale", "qrescale", "interior", "device"])?;
            let gumbel = match params.get("gumbel") {
                None | Some("false") => None,
                Some("true") => Some(16),
                Some(_) => Some(number("gumbel", 16, 2..=64)? as usize),
            };
            let sims = number("sims", 200, 1..=othello_selfplay::MAX_SIMULATIONS)?;
            let mcts = othello_selfplay::mcts::MctsConfig {
                score_utility: up_to("score", MAX_SCORE_UTILITY)?,
                gumbel_q_scale: match params.get("qscale") {
                    None => 1.0,
                    Some(v) => {
                        v.parse::<f32>().ok().filter(|x| *x > 0.0 && *x <= MAX_GUMBEL_Q_SCALE).ok_or_else(|| {
                            bad(format!("qscale={v}: expected a number above 0, at most {MAX_GUMBEL_Q_SCALE}"))
                        })?
                    }
                },
                gumbel_q_rescale: match params.get("qrescale") {
                    None | Some("false") => false,
                    Some("true") => true,
                    Some(v) => return Err(bad(format!("qrescale={v}: expected true or false"))),
                },
                interior: match params.get("interior") {
                    None => InteriorSelection::Puct,
                    Some(v) => v.parse::<InteriorSelection>().map_err(|e| bad(format!("interior={v}: {e}")))?,
                },
                ..Default::default()
            };
            let name = base.to_string();
            let model = required("model")?;
            let agent = crate::network_agent::NetworkMctsAgent::new(name, model, sims, gumbel, mcts, device()?, seed)?;
            Box::new(agent)
        }
        "engine" => {
            use crate::engine::{EngineAgent, Protocol};
            use crate::engine::{DEFAULT_MOVE_TIME, DEFAULT_STARTUP_TIME};
            allow(&["cmd", "protocol", "time", "startup"])?;
            let protocol = match required("protocol")? {
                "nboard" => Protocol::Nboard,
                "gtp" => Protocol::Gtp,
                other => return Err(bad(format!("protocol={other}: expected nboard or gtp"))),
            };
            let time = seconds("time")?.unwrap_or(DEFAULT_MOVE_TIME);
            let startup = seconds("startup")?.unwrap_or(DEFAULT_STARTUP_TIME);
            Box::new(EngineAgent::new(base.to_string(), required("cmd")?, protocol, time, startup).map_err(bad)?)
        }
        _ => {
            return Err(bad(format!(
                "unknown agent '{name}' (known: random, greedy, positional:depth=N, pattern:depth=N|time=S, \
                 mcts:sims=N, policy:model=M, net:model=M,sims=N, engine:cmd=...,protocol=P; add +endgameK for a \
                 perfect endgame)"
            )))
        }
    };
    Ok(match endgame {
        Some(k) => Box::new(EndgameAgent::new(inner, k, seed)),
        None => inner,
    })
}

/// The value of parameter `key` in an agent spec (`net:model=runs/a,sims=200` gives `runs/a` for `model`).
pub fn spec_parameter(spec: &str, key: &str) -> Option<String> {
    let base = split_outside_quotes(spec, '+').into_iter().next()?;
    let (_, params) = base.split_once(':')?;
    Params::parse(params).ok()?.get(key).map(str::to_string)
}

/// The spec with its `model=` value replaced by what `rename` makes of it (quoted); None when the spec names no
/// model or `rename` gives none.
pub fn spec_with_model(spec: &str, rename: impl FnOnce(&str) -> Option<String>) -> Option<String> {
    let given = spec_parameter(spec, "model")?;
    let model = rename(&given)?;
    let quoted = format!("model=\"{given}\"");
    let written = if spec.contains(&quoted) { quoted } else { format!("model={given}") };
    Some(spec.replacen(&written, &format!("model=\"{model}\""), 1))
}

/// `text` split at each `sep` outside double quotes.
fn split_outside_quotes(text: &str, sep: char) -> Vec<&str> {
    let (mut parts, mut start, mut quoted) = (Vec::new(), 0, false);
    for (i, c) in text.char_indices() {
        if c == '"' {
            quoted = !quoted;
        } else if c == sep && !quoted {
            parts.push(&text[start..i]);
            start = i + 1;
        }
    }
    parts.push(&text[start..]);
    parts
}

/// A spec's `key=value,key=value` (a bare `key` means `key=true`; a value may be in double quotes).
#[derive(Default)]
struct Params(Vec<(String, String)>);

impl Params {
    /// A key given twice, an empty one or an unclosed quote is an error.
    fn parse(text: &str) -> Result<Params, String> {
        if text.matches('"').count() % 2 == 1 {
            return Err(format!("'{text}' has an unclosed quote"));
        }
        let mut params: Vec<(String, String)> = Vec::new();
        for part in split_outside_quotes(text, ',') {
            let (key, value) = part.split_once('=').unwrap_or((part, "true"));
            let (key, value) = (key.trim(), value.trim());
            let value = value.strip_prefix('"').and_then(|v| v.strip_suffix('"')).unwrap_or(value);
            if key.is_empty() || value.is_empty() {
                return Err(format!("'{part}' is not KEY=VALUE"));
            }
            if params.iter().any(|(k, _)| k == key) {
                return Err(format!("'{key}' is given twice"));
            }
            params.push((key.to_string(), value.to_string()));
        }
        Ok(Params(params))
    }

    fn get(&self, key: &str) -> Option<&str> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
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
            ("net:model=/no/such/run,sims=10", "/no/such/run"),
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
        assert_eq!(spec_parameter("net:model=\"a,b\",sims=3+endgame4", "model").as_deref(), Some("a,b"));
        assert_eq!(spec_parameter("net:model=x,sims=3", "sims").as_deref(), Some("3"));
        assert_eq!(spec_parameter("greedy", "model"), None);
        let moved = |spec: &str| spec_with_model(spec, |_| Some("b/m.json".into()));
        assert_eq!(moved("net:model=a/m.json,sims=3").as_deref(), Some("net:model=\"b/m.json\",sims=3"));
        assert_eq!(moved("net:model=\"a,m\",sims=3").as_deref(), Some("net:model=\"b/m.json\",sims=3"));
        assert_eq!(moved("greedy"), None);
        assert_eq!(spec_with_model("net:model=a/m.json", |_| None), None);
    }
}
