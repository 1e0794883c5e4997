//! Every player from Python: `Agent` makes the player an agent spec names; a Python callable plays as
//! `python:name=N`, registered for the games of `arena`, which plays both as the command line's `arena` does and
//! writes the same directory.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use othello_core::{Game, Move};
use othello_eval::arena::schedule;
use othello_eval::matches::{self, MatchSetup};
use othello_eval::openings::OpeningSource;
use othello_players::agent::AgentError;
use othello_players::hosted::{self, HostedFactory, Registration};
use othello_players::AgentSpec;
use pyo3::prelude::*;

use crate::game::{move_of, Position};
use crate::{parse_rules, value_error};

/// A player named by an agent spec (`random`, `positional:depth=2`, `net:model=RUN,sims=200`, `grhino:level=3`,
/// ...), made once: a network's search keeps its tree and an engine its process between moves.
#[pyclass(module = "othello_zero._core", name = "Agent", unsendable)]
pub struct PyAgent {
    spec: AgentSpec,
    agent: Box<dyn othello_players::Agent>,
}

#[pymethods]
impl PyAgent {
    /// The player of `spec`, its randomness seeded by `seed`; a bad spec, a model that does not load or an engine
    /// that does not start is a ValueError.
    #[new]
    #[pyo3(signature = (spec, seed = 0))]
    fn new(spec: &str, seed: u64) -> PyResult<PyAgent> {
        let spec = parse_spec(spec)?;
        let agent = spec.agent(seed).map_err(value_error)?;
        Ok(PyAgent { spec, agent })
    }

    /// The move the player chooses in `position` (a square name, or `pass` where forced); a finished game or
    /// rules the player does not play are a ValueError.
    #[pyo3(name = "move")]
    fn select(&mut self, position: &Position) -> PyResult<String> {
        let game = position.game()?;
        self.agent.check_rules(&game.rules).map_err(value_error)?;
        let chosen = self.agent.select_move(&game).map_err(value_error)?;
        Ok(chosen.to_string())
    }

    /// The spec, in its canonical form.
    #[getter]
    fn spec(&self) -> String {
        self.spec.to_string()
    }

    fn __repr__(&self) -> String {
        format!("Agent('{}')", self.spec)
    }
}

fn parse_spec(spec: &str) -> PyResult<AgentSpec> {
    spec.parse().map_err(|e| value_error(format!("agent '{spec}': {e}")))
}

/// A Python callable as a player: given a `Position`, it answers a move name (`"d3"`, `"pass"`) or an action
/// index (as `VecEnv` numbers them). An exception or another answer fails the move (the arena forfeits the game);
/// the first exception's traceback is printed.
struct CallableAgent {
    name: String,
    callable: Arc<Py<PyAny>>,
    traceback_shown: Arc<AtomicBool>,
}

impl othello_players::Agent for CallableAgent {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn select_move(&mut self, game: &Game) -> Result<Move, AgentError> {
        let failed = |message: String| AgentError::Failed { agent: self.name.clone(), message };
        Python::attach(|py| {
            let answer = self.callable.call1(py, (Position::from_game(game),)).map_err(|e| {
                if !self.traceback_shown.swap(true, Ordering::Relaxed) {
                    e.print(py);
                }
                failed(e.to_string())
            })?;
            move_of(answer.bind(py), game.rules.size).map_err(|e| failed(format!("answered {e}")))
        })
    }
}

/// Plays the arena's games between `players` (agent specs, `Agent`s, or Python callables named by their
/// `__name__` or given as `(name, callable)`) into `out`, then rates them, as `othello-zero arena` does: results.csv,
/// games/, ratings.csv and ratings.json. A rerun continues. The interpreter is released between the callables'
/// moves, so `threads` games go on at once.
#[pyfunction]
#[pyo3(signature = (players, out, games = 20, rules = "othello", seed = 1, openings = "shipped", opening_plies = 4,
                    threads = 1, gauntlet = None))]
#[allow(clippy::too_many_arguments)]
pub fn arena(
    py: Python<'_>,
    players: Vec<Bound<'_, PyAny>>,
    out: PathBuf,
    games: u32,
    rules: &str,
    seed: u64,
    openings: &str,
    opening_plies: u32,
    threads: usize,
    gauntlet: Option<Bound<'_, PyAny>>,
) -> PyResult<()> {
    let rules = parse_rules(rules)?;
    if games == 0 || threads == 0 {
        return Err(value_error(format!("games {games}, threads {threads}: expected at least 1 of each")));
    }
    let openings = OpeningSource::named(openings, opening_plies, &rules).map_err(value_error)?;
    let mut registrations = Vec::new();
    let mut specs = Vec::new();
    for player in &players {
        specs.push(player_spec(player, &mut registrations)?);
    }
    let gauntlet = gauntlet.map(|g| player_spec(&g, &mut registrations)).transpose()?;
    if let Some(g) = &gauntlet {
        if !specs.contains(g) {
            specs.push(g.clone());
        }
    }
    let setup = MatchSetup { rules, seed, openings, threads };
    py.detach(|| play(&out, &specs, gauntlet.as_ref(), games, &setup)).map_err(value_error)?;
    drop(registrations);
    Ok(())
}

fn play(
    out: &std::path::Path,
    specs: &[AgentSpec],
    gauntlet: Option<&AgentSpec>,
    games: u32,
    setup: &MatchSetup,
) -> Result<(), String> {
    for spec in specs {
        spec.check(&setup.rules).map_err(|e| e.to_string())?;
    }
    let all = schedule(specs, gauntlet, games).map_err(|e| e.to_string())?;
    matches::play_scheduled(out, &all, setup, &mut |_| {}).map_err(|e| e.to_string())?;
    matches::rate(std::slice::from_ref(&out.to_path_buf()), out, None, &mut |_| {}).map_err(|e| e.to_string())?;
    Ok(())
}

/// The spec a player of `arena` plays as; a callable is registered under its name for the arena's games.
fn player_spec(player: &Bound<'_, PyAny>, registrations: &mut Vec<Registration>) -> PyResult<AgentSpec> {
    if let Ok(spec) = player.extract::<String>() {
        return parse_spec(&spec);
    }
    if let Ok(agent) = player.cast::<PyAgent>() {
        return Ok(agent.borrow().spec.clone());
    }
    let (name, callable) = match player.extract::<(String, Bound<'_, PyAny>)>() {
        Ok(named) => named,
        Err(_) => {
            let name = player.getattr("__name__").and_then(|n| n.extract::<String>());
            (name.unwrap_or_default(), player.clone())
        }
    };
    if !callable.is_callable() {
        return Err(value_error(format!("player {player}: expected an agent spec, an Agent or a callable")));
    }
    let spec = parse_spec(&format!("python:name={name}")).map_err(|_| {
        value_error(format!(
            "player {player}: a Python player's name ('{name}') is letters, digits, '_', '-' and '.' (give \
             (name, callable))"
        ))
    })?;
    let callable = Arc::new(callable.unbind());
    let traceback_shown = Arc::new(AtomicBool::new(false));
    let agent_name = spec.to_string();
    let factory: HostedFactory = Arc::new(move |_seed| {
        Box::new(CallableAgent {
            name: agent_name.clone(),
            callable: callable.clone(),
            traceback_shown: traceback_shown.clone(),
        })
    });
    registrations.push(hosted::register(&name, factory).map_err(value_error)?);
    Ok(spec)
}
