//! An agent spec, the one way a player is named on the command line, in configs and in the arena's tables:
//! `NAME[:KEY=VALUE,...][+endgameK]`, a value holding commas or spaces in double quotes. [`AgentSpec`] parses it
//! (one [`SpecError`] per failure) and prints it back in its canonical form: parameters in the documented order,
//! defaults left out (a `net:` player's search settings printed as given, since one left out is its network's),
//! models and commands always quoted. A canonical spec prints as it was written, and every spec parses back from its
//! print to the same value.

use std::fmt;
use std::str::FromStr;

use othello_net::DeviceChoice;
use othello_search::PlayerSearch;
use thiserror::Error;

use crate::engine::Protocol;

mod make;
mod net_search;

pub use net_search::{NetSearch, MAX_SCORE_UTILITY};

/// The most empties `+endgameK` solves from: beyond, a perfect move takes longer than a game.
const MAX_ENDGAME: u32 = 30;
/// The most seconds a move or an engine's start may be given.
const MAX_SECONDS: f64 = 86_400.0;

/// A player, with its parameters; see [`AgentKind`] for each. Read from a flag through `FromStr`, from a config
/// through `TryFrom<String>` (its error names the whole spec), written back in its canonical form.
#[derive(Clone, Debug, serde::Deserialize, serde::Serialize)]
#[serde(try_from = "String", into = "String")]
pub struct AgentSpec {
    pub kind: AgentKind,
    /// `+endgameK`: perfect play once at most K squares are empty.
    pub endgame: Option<u32>,
}

/// The players the harness knows. A parameter left out (`None`) takes its default when the agent is made.
#[derive(Clone, Debug, PartialEq)]
pub enum AgentKind {
    /// `random`: uniformly random legal moves.
    Random,
    /// `greedy`: the move that flips most.
    Greedy,
    /// `positional:depth=N`: alpha-beta to N plies (1-12, default 4) on square weights and mobility.
    Positional { depth: Option<u32> },
    /// `pattern:depth=N` or `pattern:time=S`, `[,exact=K]`: principal variation search on the WTHOR-fitted pattern
    /// evaluation (default depth 6), exact from K empties; 8x8 Othello only.
    Pattern { budget: Option<PatternBudget>, exact: Option<u32> },
    /// `mcts:sims=N`: Monte-Carlo tree search with random rollouts (default 1000 simulations).
    Mcts { sims: Option<u32> },
    /// `policy:model=M[,temperature=T][,device=D]`: a network's raw policy, the best legal move or sampled.
    Policy { model: String, temperature: Option<f32>, device: Option<DeviceChoice> },
    /// `net:model=M[,sims=N][,gumbel=K][,score=W][,qscale=C][,qrescale][,interior=I][,cpuct=C][,fpu=F][,device=D]`
    /// `[,time=S][,total=S]`: the network with its search, no root noise, the tree kept between moves. `model` is a
    /// checkpoint or a run directory (its newest checkpoint). A setting left out is the network's shipped one
    /// ([`NetSearch`]). With a time control, `sims` is the cap (none by default) and the solver plays the endgame
    /// once it proves it within the move's time.
    Net { model: String, search: NetSearch, device: Option<DeviceChoice>, time: TimeControl },
    /// `engine:cmd="PROGRAM ARGS",protocol=nboard|gtp[,depth=N][,time=S][,startup=S][,total=S]`: an external
    /// program; an NBoard engine is set to search `depth` plies (default 60).
    Engine { cmd: String, protocol: Protocol, depth: Option<u32>, time: EngineTime },
    /// `grhino:level=N[,cmd="PROGRAM"][,time=S][,startup=S][,total=S]`: GRhino's `gtp-rhino` at level N (1-5,
    /// default 3), found on the PATH or at Debian's `/usr/games` unless `cmd` names it; a move's time suits the level.
    Grhino { level: u32, cmd: Option<String>, time: EngineTime },
    /// `python:name=N`: a player the host process registered under N ([`crate::hosted`]): a Python callable that
    /// `othello_zero.arena` plays. N is letters, digits, `_`, `-` and `.`.
    Python { name: String },
}

/// An external engine's time in seconds, each left out for its default: `time` a move (GRhino's level's own pace,
/// whether named `grhino:` or run by `engine:`; other engines 10), `startup` more for its first move (20), `total`
/// for all its moves of a game (none). A move is over its time once it has taken it both on the wall clock and on
/// the processor (`engine::clock`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct EngineTime {
    pub time: Option<f64>,
    pub startup: Option<f64>,
    pub total: Option<f64>,
}

/// A `net:` player's time in seconds, each optional: `time` at most a move, `total` for all its moves of a game
/// ([`crate::thinking_time`] spends it). Without either, the player searches its simulations whatever they take.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TimeControl {
    pub time: Option<f64>,
    pub total: Option<f64>,
}

impl TimeControl {
    /// Any limit at all.
    pub fn is_set(&self) -> bool {
        self.time.is_some() || self.total.is_some()
    }
}

/// A `pattern:` player's budget a move.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PatternBudget {
    Depth(u32),
    /// Seconds.
    Time(f64),
}

/// What is wrong with a spec.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum SpecError {
    #[error("'{0}' has an unclosed quote")]
    UnclosedQuote(String),
    #[error("'{0}' is not KEY=VALUE")]
    NotKeyValue(String),
    #[error("'{0}' is given twice")]
    GivenTwice(String),
    #[error("'+{0}' is not +endgameK with K from 0 to {MAX_ENDGAME}, e.g. +endgame14")]
    Suffix(String),
    #[error("more than one '+' suffix")]
    TwoSuffixes,
    #[error(
        "unknown agent '{0}' (known: random, greedy, positional:depth=N, pattern:depth=N|time=S, mcts:sims=N, \
         policy:model=M, net:model=M,sims=N, engine:cmd=...,protocol=P, grhino:level=N, python:name=N; add \
         +endgameK for a perfect endgame)"
    )]
    UnknownAgent(String),
    #[error("'{agent}' takes no parameters (got '{key}')")]
    NoParameters { agent: &'static str, key: String },
    #[error("'{agent}' has no parameter '{key}' (known: {known})")]
    UnknownParameter { agent: &'static str, key: String, known: String },
    #[error("'{agent}' needs {key}=...")]
    Missing { agent: &'static str, key: &'static str },
    #[error("{key}={value}: expected {expected}")]
    Value { key: String, value: String, expected: String },
    #[error("give depth or time, not both")]
    DepthAndTime,
}

impl AgentSpec {
    /// The network `model` with `search`: how the evaluation stage names a checkpoint's player.
    pub fn net(model: impl Into<String>, search: PlayerSearch) -> AgentSpec {
        let (time, search) = (TimeControl::default(), NetSearch::of(&search));
        AgentSpec { kind: AgentKind::Net { model: model.into(), search, device: None, time }, endgame: None }
    }

    /// The spec of checkpoint `model` played with `search`, as the evaluation's tables name it.
    pub fn checkpoint_player(model: &std::path::Path, search: &PlayerSearch) -> AgentSpec {
        AgentSpec::net(model.display().to_string(), search.clone())
    }

    /// The model a `policy:` or `net:` player loads.
    pub fn model(&self) -> Option<&str> {
        match &self.kind {
            AgentKind::Policy { model, .. } | AgentKind::Net { model, .. } => Some(model),
            _ => None,
        }
    }

    /// The spec with its model replaced by what `rename` makes of it; None when it loads no model or `rename` gives
    /// none.
    pub fn with_model(&self, rename: impl FnOnce(&str) -> Option<String>) -> Option<AgentSpec> {
        let renamed = rename(self.model()?)?;
        let mut spec = self.clone();
        if let AgentKind::Policy { model, .. } | AgentKind::Net { model, .. } = &mut spec.kind {
            *model = renamed;
        }
        Some(spec)
    }

    /// A `net:` player's search where its network ships none (a run's checkpoints), as the evaluation compares it.
    pub fn search(&self) -> Option<PlayerSearch> {
        match &self.kind {
            AgentKind::Net { search, time, .. } => Some(search.resolve(time.is_set())),
            _ => None,
        }
    }

    /// An external program (`engine:`, `grhino:`), not one of the harness's own players.
    pub fn is_external(&self) -> bool {
        matches!(self.kind, AgentKind::Engine { .. } | AgentKind::Grhino { .. })
    }

    /// The spec, marked where it is an external engine, as the ratings table and picture show it.
    pub fn label(&self) -> String {
        if self.is_external() {
            format!("{self} (external)")
        } else {
            self.to_string()
        }
    }

    /// Why an external engine's player cannot be made on this machine: its program is not there (for a `grhino:`
    /// player without `cmd`, GRhino is not installed).
    pub fn missing_program(&self) -> Option<String> {
        use crate::engine::{self, grhino};
        match &self.kind {
            AgentKind::Grhino { cmd: None, .. } if grhino::find().is_none() => Some(format!(
                "GRhino's {} is neither on the PATH nor at {} (install Debian's grhino, or give cmd=)",
                grhino::PROGRAM,
                grhino::DEBIAN_PATH
            )),
            // A `grhino:` cmd is the program's path, one word however many spaces it holds.
            AgentKind::Grhino { cmd: Some(program), level, .. } => {
                engine::missing_program(&grhino::command(program, *level))
            }
            AgentKind::Engine { cmd, .. } => engine::missing_program(cmd),
            _ => None,
        }
    }

    /// The spec without its `+endgameK`.
    pub fn base(&self) -> AgentSpec {
        AgentSpec { endgame: None, ..self.clone() }
    }
}

impl TryFrom<String> for AgentSpec {
    type Error = crate::AgentError;

    fn try_from(spec: String) -> Result<AgentSpec, crate::AgentError> {
        spec.parse().map_err(|problem| crate::AgentError::BadSpec { spec, problem })
    }
}

impl From<AgentSpec> for String {
    fn from(spec: AgentSpec) -> String {
        spec.to_string()
    }
}

impl FromStr for AgentSpec {
    type Err = SpecError;

    fn from_str(spec: &str) -> Result<AgentSpec, SpecError> {
        let (base, endgame) = match split_outside_quotes(spec, '+').as_slice() {
            [base] => (*base, None),
            [base, extra] => {
                let k = extra.strip_prefix("endgame").and_then(|k| k.parse::<u32>().ok()).filter(|&k| k <= MAX_ENDGAME);
                (*base, Some(k.ok_or_else(|| SpecError::Suffix(extra.to_string()))?))
            }
            _ => return Err(SpecError::TwoSuffixes),
        };
        let (name, params) = match base.split_once(':') {
            Some((name, params)) => (name, Params::parse(params)?),
            None => (base, Params::default()),
        };
        Ok(AgentSpec { kind: AgentKind::parse(name, &params)?, endgame })
    }
}

impl AgentKind {
    fn parse(name: &str, p: &Params) -> Result<AgentKind, SpecError> {
        Ok(match name {
            "random" => p.allow("random", &[]).map(|_| AgentKind::Random)?,
            "greedy" => p.allow("greedy", &[]).map(|_| AgentKind::Greedy)?,
            "positional" => {
                p.allow("positional", &["depth"])?;
                AgentKind::Positional { depth: p.number("depth", 1..=12)? }
            }
            "pattern" => {
                p.allow("pattern", &["depth", "time", "exact"])?;
                let budget = match (p.number("depth", 1..=40)?, p.seconds("time")?) {
                    (Some(_), Some(_)) => return Err(SpecError::DepthAndTime),
                    (Some(d), None) => Some(PatternBudget::Depth(d)),
                    (None, Some(t)) => Some(PatternBudget::Time(t)),
                    (None, None) => None,
                };
                AgentKind::Pattern { budget, exact: p.number("exact", 0..=30)? }
            }
            "mcts" => {
                p.allow("mcts", &["sims"])?;
                AgentKind::Mcts { sims: p.number("sims", 1..=10_000_000)? }
            }
            "policy" => {
                p.allow("policy", &["model", "temperature", "device"])?;
                let temperature = p.real("temperature", 0.0..=10.0, "a number from 0 to 10")?;
                AgentKind::Policy { model: p.required("policy", "model")?, temperature, device: p.device()? }
            }
            "net" => {
                p.allow("net", &[&["model"][..], &net_search::KEYS, &["device", "time", "total"]].concat())?;
                let time = TimeControl { time: p.seconds("time")?, total: p.seconds("total")? };
                let search = NetSearch::read(p)?;
                AgentKind::Net { model: p.required("net", "model")?, search, device: p.device()?, time }
            }
            "engine" => {
                p.allow("engine", &["cmd", "protocol", "depth", "time", "startup", "total"])?;
                let protocol = match p.get("protocol") {
                    Some("nboard") => Protocol::Nboard,
                    Some("gtp") => Protocol::Gtp,
                    Some(other) => return Err(p.bad_value("protocol", other, "nboard or gtp")),
                    None => return Err(SpecError::Missing { agent: "engine", key: "protocol" }),
                };
                let cmd = p.required("engine", "cmd")?;
                let depth = p.number("depth", 1..=60)?;
                if depth.is_some() && protocol != Protocol::Nboard {
                    return Err(p.bad("depth", "no depth: a GTP engine is set by its command line"));
                }
                AgentKind::Engine { cmd, protocol, depth, time: p.engine_time()? }
            }
            "grhino" => {
                p.allow("grhino", &["level", "cmd", "time", "startup", "total"])?;
                let level = p.number("level", crate::engine::grhino::LEVELS)?;
                let level = level.unwrap_or(crate::engine::grhino::DEFAULT_LEVEL);
                AgentKind::Grhino { level, cmd: p.get("cmd").map(str::to_string), time: p.engine_time()? }
            }
            "python" => {
                p.allow("python", &["name"])?;
                let name = p.required("python", "name")?;
                if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || "_-.".contains(c)) {
                    return Err(p.bad_value("name", &name, "letters, digits, '_', '-' and '.'"));
                }
                AgentKind::Python { name }
            }
            _ => return Err(SpecError::UnknownAgent(name.to_string())),
        })
    }
}

/// An optional parameter's value as a spec writes it.
fn text(value: &Option<impl ToString>) -> Option<String> {
    value.as_ref().map(ToString::to_string)
}

/// Players are told apart, ordered and hashed by their one printed form (a spec prints canonically, and reads
/// back equal: the arena's tables and files key players by it).
impl PartialEq for AgentSpec {
    fn eq(&self, other: &Self) -> bool {
        self.to_string() == other.to_string()
    }
}

impl Eq for AgentSpec {}

impl Ord for AgentSpec {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.to_string().cmp(&other.to_string())
    }
}

impl PartialOrd for AgentSpec {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl std::hash::Hash for AgentSpec {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.to_string().hash(state);
    }
}

impl fmt::Display for AgentSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kv = |key: &str, value: Option<String>| value.map(|v| format!("{key}={v}"));
        let quoted = |t: &str| Some(format!("\"{t}\""));
        let (name, params): (&str, Vec<Option<String>>) = match &self.kind {
            AgentKind::Random => ("random", vec![]),
            AgentKind::Greedy => ("greedy", vec![]),
            AgentKind::Positional { depth } => ("positional", vec![kv("depth", text(depth))]),
            AgentKind::Pattern { budget, exact } => {
                let budget = match budget {
                    Some(PatternBudget::Depth(d)) => kv("depth", Some(d.to_string())),
                    Some(PatternBudget::Time(t)) => kv("time", Some(t.to_string())),
                    None => None,
                };
                ("pattern", vec![budget, kv("exact", text(exact))])
            }
            AgentKind::Mcts { sims } => ("mcts", vec![kv("sims", text(sims))]),
            AgentKind::Policy { model, temperature, device } => (
                "policy",
                vec![kv("model", quoted(model)), kv("temperature", text(temperature)), kv("device", text(device))],
            ),
            AgentKind::Net { model, search, device, time } => {
                let mut params = vec![kv("model", quoted(model))];
                params.extend(search.params(time.is_set()).into_iter().map(Some));
                params.extend([
                    kv("device", text(device)),
                    kv("time", text(&time.time)),
                    kv("total", text(&time.total)),
                ]);
                ("net", params)
            }
            AgentKind::Engine { cmd, protocol, depth, time } => {
                let mut params = vec![
                    kv("cmd", quoted(cmd)),
                    kv("protocol", Some(protocol.name().to_string())),
                    kv("depth", text(depth)),
                ];
                params.extend(time.params());
                ("engine", params)
            }
            AgentKind::Grhino { level, cmd, time } => {
                let mut params = vec![kv("level", Some(level.to_string())), kv("cmd", cmd.as_deref().and_then(quoted))];
                params.extend(time.params());
                ("grhino", params)
            }
            AgentKind::Python { name } => ("python", vec![kv("name", Some(name.clone()))]),
        };
        f.write_str(name)?;
        let params: Vec<String> = params.into_iter().flatten().collect();
        if !params.is_empty() {
            write!(f, ":{}", params.join(","))?;
        }
        match self.endgame {
            Some(k) => write!(f, "+endgame{k}"),
            None => Ok(()),
        }
    }
}

impl EngineTime {
    /// The engine's limits, `move_time` a move unless `time` is given.
    pub fn limits(&self, move_time: std::time::Duration) -> crate::engine::Limits {
        let seconds = std::time::Duration::from_secs_f64;
        crate::engine::Limits {
            move_time: self.time.map_or(move_time, seconds),
            startup_time: self.startup.map_or(crate::engine::DEFAULT_STARTUP_TIME, seconds),
            game_time: self.total.map(seconds),
        }
    }

    /// As a spec writes them.
    fn params(&self) -> [Option<String>; 3] {
        [("time", self.time), ("startup", self.startup), ("total", self.total)]
            .map(|(key, value)| value.map(|v| format!("{key}={v}")))
    }
}

/// `text` split at each `sep` outside double quotes.
pub(crate) fn split_outside_quotes(text: &str, sep: char) -> Vec<&str> {
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
    fn parse(text: &str) -> Result<Params, SpecError> {
        if text.matches('"').count() % 2 == 1 {
            return Err(SpecError::UnclosedQuote(text.to_string()));
        }
        let mut params: Vec<(String, String)> = Vec::new();
        for part in split_outside_quotes(text, ',') {
            let (key, value) = part.split_once('=').unwrap_or((part, "true"));
            let (key, value) = (key.trim(), value.trim());
            let value = value.strip_prefix('"').and_then(|v| v.strip_suffix('"')).unwrap_or(value);
            if key.is_empty() || value.is_empty() {
                return Err(SpecError::NotKeyValue(part.to_string()));
            }
            if params.iter().any(|(k, _)| k == key) {
                return Err(SpecError::GivenTwice(key.to_string()));
            }
            params.push((key.to_string(), value.to_string()));
        }
        Ok(Params(params))
    }

    fn get(&self, key: &str) -> Option<&str> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    fn allow(&self, agent: &'static str, known: &[&str]) -> Result<(), SpecError> {
        match self.0.iter().find(|(k, _)| !known.contains(&k.as_str())) {
            Some((key, _)) if known.is_empty() => Err(SpecError::NoParameters { agent, key: key.clone() }),
            Some((key, _)) => Err(SpecError::UnknownParameter { agent, key: key.clone(), known: known.join(", ") }),
            None => Ok(()),
        }
    }

    fn bad_value(&self, key: &str, value: &str, expected: &str) -> SpecError {
        SpecError::Value { key: key.into(), value: value.into(), expected: expected.into() }
    }

    fn bad(&self, key: &str, expected: &str) -> SpecError {
        self.bad_value(key, self.get(key).unwrap_or_default(), expected)
    }

    fn required(&self, agent: &'static str, key: &'static str) -> Result<String, SpecError> {
        self.get(key).map(str::to_string).ok_or(SpecError::Missing { agent, key })
    }

    fn number(&self, key: &str, range: std::ops::RangeInclusive<u32>) -> Result<Option<u32>, SpecError> {
        let expected = || format!("a whole number from {} to {}", range.start(), range.end());
        self.get(key)
            .map(|v| v.parse::<u32>().ok().filter(|n| range.contains(n)).ok_or_else(|| self.bad(key, &expected())))
            .transpose()
    }

    fn real(&self, key: &str, range: std::ops::RangeInclusive<f32>, expected: &str) -> Result<Option<f32>, SpecError> {
        self.get(key)
            .map(|v| v.parse::<f32>().ok().filter(|x| range.contains(x)).ok_or_else(|| self.bad(key, expected)))
            .transpose()
    }

    fn seconds(&self, key: &str) -> Result<Option<f64>, SpecError> {
        let valid = |s: &f64| *s > 0.0 && *s <= MAX_SECONDS;
        self.get(key)
            .map(|v| {
                let expected = format!("seconds, more than 0, at most {MAX_SECONDS} (a day)");
                v.parse::<f64>().ok().filter(valid).ok_or_else(|| self.bad(key, &expected))
            })
            .transpose()
    }

    fn engine_time(&self) -> Result<EngineTime, SpecError> {
        Ok(EngineTime { time: self.seconds("time")?, startup: self.seconds("startup")?, total: self.seconds("total")? })
    }

    fn flag(&self, key: &str) -> Result<bool, SpecError> {
        match self.get(key) {
            None | Some("false") => Ok(false),
            Some("true") => Ok(true),
            Some(_) => Err(self.bad(key, "true or false")),
        }
    }

    fn device(&self) -> Result<Option<DeviceChoice>, SpecError> {
        self.get("device").map(|d| d.parse().map_err(|e| self.bad("device", &format!("{e}")))).transpose()
    }
}

#[cfg(test)]
mod tests;
