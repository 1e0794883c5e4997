//! Players the host process supplies, named by a `python:name=N` spec: a Python callable that
//! `othello_zero.arena` registers for the games it plays. The registry is the process's own, so the arena, its
//! threads and its stored rows name such a player like any other; a program that registered none (the command
//! line) refuses the spec with a clear line.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use crate::agent::Agent;

/// Makes the player for one game, seeded.
pub type HostedFactory = Arc<dyn Fn(u64) -> Box<dyn Agent> + Send + Sync>;

static HOSTED: Mutex<BTreeMap<String, HostedFactory>> = Mutex::new(BTreeMap::new());

/// A name registered until this is dropped.
#[must_use = "the player is unregistered when this is dropped"]
pub struct Registration {
    name: String,
}

/// Registers `factory` as the player `python:name=NAME`; an error where another holds the name.
pub fn register(name: &str, factory: HostedFactory) -> Result<Registration, String> {
    let mut hosted = lock();
    if hosted.contains_key(name) {
        return Err(format!("a Python player named '{name}' is already playing in this process"));
    }
    hosted.insert(name.to_string(), factory);
    Ok(Registration { name: name.to_string() })
}

/// The player registered as `name`, made for a game; None where none is.
pub fn make(name: &str, seed: u64) -> Option<Box<dyn Agent>> {
    let factory = lock().get(name).cloned()?;
    Some(factory(seed))
}

impl Drop for Registration {
    fn drop(&mut self) {
        lock().remove(&self.name);
    }
}

fn lock() -> std::sync::MutexGuard<'static, BTreeMap<String, HostedFactory>> {
    HOSTED.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{AgentSpec, GreedyAgent};

    #[test]
    fn a_registered_player_is_made_from_its_spec_until_unregistered() {
        let spec: AgentSpec = "python:name=hosted_greedy".parse().unwrap();
        let factory: HostedFactory = Arc::new(|seed| Box::new(GreedyAgent::new(seed)));
        let registration = register("hosted_greedy", factory.clone()).unwrap();
        assert!(register("hosted_greedy", factory).is_err(), "one name, one player");
        let mut game = othello_core::Game::new(othello_core::Rules::othello());
        let mut agent = spec.agent(3).unwrap();
        game.push(agent.select_move(&game).unwrap()).unwrap();
        drop(registration);
        let err = spec.agent(3).err().unwrap().to_string();
        assert!(err.contains("no Python player named 'hosted_greedy'"), "{err}");
    }
}
