//! A `net:` player's search as its spec gives it, each setting optional. What a spec leaves out is the network's
//! own, the search it ships with (its sidecar's `player`, e.g. `"sims=16384,gumbel=16"`), else the harness's
//! default: `net:model=networks/othello-8x8/model.json,time=0.1` is the shipped player on a tenth of a second.

use std::str::FromStr;

use othello_search::{InteriorSelection, MctsConfig, PlayerSearch, MAX_SIMULATIONS};

use super::{Params, SpecError};

/// The largest weight a search gives the disc margin beside the result: `score=` in a `net:` spec, and the configs'
/// `score_utility` keys.
pub const MAX_SCORE_UTILITY: f32 = 10.0;
/// The largest Gumbel value scale a `net:` player takes (`qscale=`).
const MAX_GUMBEL_Q_SCALE: f32 = 1000.0;
/// Root moves a `net:` player's Gumbel search considers when `gumbel` gives no number.
const DEFAULT_GUMBEL_CONSIDERED: usize = 16;
/// A `net:` player's simulations a move when neither its spec nor its network gives any.
const DEFAULT_NET_SIMULATIONS: u32 = 200;

/// The search settings a `net:` spec may give, in the order a spec prints them.
pub(super) const KEYS: [&str; 8] = ["sims", "gumbel", "score", "qscale", "qrescale", "interior", "cpuct", "fpu"];

/// The search settings a `net:` spec gives (None: left to the network, else to the harness's default).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NetSearch {
    pub sims: Option<u32>,
    /// `gumbel=K` is `Some(Some(K))`, `gumbel=false` is `Some(None)`: PUCT at the root even where the network
    /// ships a Gumbel search.
    pub gumbel: Option<Option<usize>>,
    pub score: Option<f32>,
    pub qscale: Option<f32>,
    pub qrescale: Option<bool>,
    pub interior: Option<InteriorSelection>,
    pub cpuct: Option<f32>,
    pub fpu: Option<f32>,
}

impl NetSearch {
    /// The settings among `p` (which may hold other keys).
    pub(super) fn read(p: &Params) -> Result<NetSearch, SpecError> {
        let gumbel = match p.get("gumbel") {
            None => None,
            Some("false") => Some(None),
            Some("true") => Some(Some(DEFAULT_GUMBEL_CONSIDERED)),
            Some(_) => Some(p.number("gumbel", 2..=64)?.map(|k| k as usize)),
        };
        let score = format!("a number from 0 to {MAX_SCORE_UTILITY}");
        let qscale = format!("a number above 0, at most {MAX_GUMBEL_Q_SCALE}");
        Ok(NetSearch {
            sims: p.number("sims", 1..=MAX_SIMULATIONS)?,
            gumbel,
            score: p.real("score", 0.0..=MAX_SCORE_UTILITY, &score)?,
            qscale: p.real("qscale", f32::MIN_POSITIVE..=MAX_GUMBEL_Q_SCALE, &qscale)?,
            qrescale: p.get("qrescale").map(|_| p.flag("qrescale")).transpose()?,
            interior: p
                .get("interior")
                .map(|v| v.parse().map_err(|e| p.bad("interior", &format!("{e}"))))
                .transpose()?,
            cpuct: p.real("cpuct", f32::MIN_POSITIVE..=100.0, "a number above 0, at most 100")?,
            fpu: p.real("fpu", -10.0..=10.0, "a number from -10 to 10")?,
        })
    }

    /// The settings that name `search` once the harness's defaults fill the rest: its simulations, and each
    /// setting away from its default. A run's checkpoints ship no search, so that this is `search` whole there.
    pub fn of(search: &PlayerSearch) -> NetSearch {
        let (mcts, defaults) = (&search.mcts, MctsConfig::default());
        let unless = |value: f32, default: f32| (value != default).then_some(value);
        NetSearch {
            sims: Some(search.sims),
            gumbel: search.gumbel.map(Some),
            score: unless(mcts.score_utility, 0.0),
            qscale: unless(mcts.gumbel_q_scale, defaults.gumbel_q_scale),
            qrescale: mcts.gumbel_q_rescale.then_some(true),
            interior: (mcts.interior != InteriorSelection::Puct).then_some(mcts.interior),
            cpuct: unless(mcts.cpuct, defaults.cpuct),
            fpu: unless(mcts.fpu_reduction, defaults.fpu_reduction),
        }
    }

    /// These settings, each one left out taken from `shipped`; on the clock (`timed`) not the simulations, which
    /// are a cap there, none unless the spec gives one.
    pub fn or(&self, shipped: &NetSearch, timed: bool) -> NetSearch {
        NetSearch {
            sims: self.sims.or(shipped.sims.filter(|_| !timed)),
            gumbel: self.gumbel.or(shipped.gumbel),
            score: self.score.or(shipped.score),
            qscale: self.qscale.or(shipped.qscale),
            qrescale: self.qrescale.or(shipped.qrescale),
            interior: self.interior.or(shipped.interior),
            cpuct: self.cpuct.or(shipped.cpuct),
            fpu: self.fpu.or(shipped.fpu),
        }
    }

    /// The whole search, what is left out at the harness's defaults. On the clock (`timed`) the simulations are
    /// a cap, none unless given.
    pub fn resolve(&self, timed: bool) -> PlayerSearch {
        let defaults = MctsConfig::default();
        let mcts = MctsConfig {
            score_utility: self.score.unwrap_or(0.0),
            gumbel_q_scale: self.qscale.unwrap_or(defaults.gumbel_q_scale),
            gumbel_q_rescale: self.qrescale.unwrap_or(false),
            interior: self.interior.unwrap_or(InteriorSelection::Puct),
            cpuct: self.cpuct.unwrap_or(defaults.cpuct),
            fpu_reduction: self.fpu.unwrap_or(defaults.fpu_reduction),
            ..defaults
        };
        let sims = self.sims.unwrap_or(if timed { MAX_SIMULATIONS } else { DEFAULT_NET_SIMULATIONS });
        PlayerSearch::new(sims, self.gumbel.flatten(), mcts)
    }

    /// The settings given, as a spec writes them, in [`KEYS`]' order. On the clock (`timed`) the simulations'
    /// cap is left out where it is no cap at all.
    pub(super) fn params(&self, timed: bool) -> Vec<String> {
        let kv = |key: &str, value: Option<String>| value.map(|v| format!("{key}={v}"));
        let text = |value: Option<f32>| value.map(|v| v.to_string());
        let sims = self.sims.filter(|&s| !(timed && s == MAX_SIMULATIONS));
        let gumbel = self.gumbel.map(|k| k.map_or("false".to_string(), |k| k.to_string()));
        let qrescale = self.qrescale.map(|on| if on { "qrescale" } else { "qrescale=false" }.to_string());
        [
            kv("sims", sims.map(|s| s.to_string())),
            kv("gumbel", gumbel),
            kv("score", text(self.score)),
            kv("qscale", text(self.qscale)),
            qrescale,
            kv("interior", self.interior.map(|i| i.to_string())),
            kv("cpuct", text(self.cpuct)),
            kv("fpu", text(self.fpu)),
        ]
        .into_iter()
        .flatten()
        .collect()
    }
}

/// A network's shipped search (its sidecar's `player`): settings only, as a `net:` spec writes them.
impl FromStr for NetSearch {
    type Err = SpecError;

    fn from_str(text: &str) -> Result<NetSearch, SpecError> {
        let p = Params::parse(text)?;
        p.allow("player", &KEYS)?;
        NetSearch::read(&p)
    }
}
