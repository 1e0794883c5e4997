//! Making the agent a spec names.

use othello_core::Rules;

use super::{AgentKind, AgentSpec, PatternBudget};
use crate::agent::{Agent, AgentError};
use crate::baselines::{EndgameAgent, GreedyAgent, RandomAgent};

impl AgentSpec {
    /// Makes the agent once, to refuse one that cannot be made (a model that does not load, an engine that is not
    /// there) or that does not play `rules`, before any game.
    pub fn check(&self, rules: &Rules) -> Result<(), AgentError> {
        self.agent(0)?.check_rules(rules)
    }

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
            AgentKind::Net { model, search, device: d, time } => {
                Box::new(crate::network_agent::NetworkMctsAgent::new(name, model, search, *time, device(d), seed)?)
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
            AgentKind::Python { name } => crate::hosted::make(name, seed).ok_or_else(|| AgentError::Spec {
                spec: self.to_string(),
                message: format!(
                    "no Python player named '{name}' in this process (Python players play through othello_zero.arena)"
                ),
            })?,
        };
        Ok(match self.endgame {
            Some(k) => Box::new(EndgameAgent::new(inner, k, seed)),
            None => inner,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
            assert_eq!(spec.parse::<AgentSpec>().unwrap().agent(1).unwrap().name(), name);
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
            let made = AgentSpec::try_from(spec.to_string()).and_then(|parsed| parsed.agent(1));
            let err = made.err().expect("a bad spec").to_string();
            assert!(err.contains(spec) && err.contains(part), "{spec}: {err}");
        }
    }
}
