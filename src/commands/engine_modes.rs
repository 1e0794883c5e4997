//! `nboard`, `gtp` and `play`: an agent on standard input and output, served as an engine for NBoard, GTP front
//! ends and other arenas, or playing a person at the terminal.

use std::io::IsTerminal;

use anyhow::{Context, Result};
use othello_eval::Agent;

pub fn nboard(agent: &str, seed: u64) -> Result<()> {
    let agent = othello_eval::agent_from_spec(agent, seed)?;
    let session = othello_eval::nboard::NboardSession::new(agent);
    othello_eval::serve::serve(session, std::io::stdin().lock(), std::io::stdout().lock())?;
    Ok(())
}

pub fn gtp(agent: &str, seed: u64) -> Result<()> {
    let agent = othello_eval::agent_from_spec(agent, seed)?;
    let session = othello_eval::gtp::GtpSession::new(agent);
    othello_eval::serve::serve(session, std::io::stdin().lock(), std::io::stdout().lock())?;
    Ok(())
}

pub fn play(agent: &str, person: othello_core::Color, from: &str, rules: othello_core::Rules, seed: u64) -> Result<()> {
    let mut agent = othello_eval::agent_from_spec(agent, seed)?;
    agent.check_rules(&rules)?;
    let game = othello_core::Game::from_transcript(rules, from).with_context(|| format!("--from {from}"))?;
    let stdin = std::io::stdin();
    let echo = !stdin.is_terminal();
    othello_eval::human_play::play_against_person(
        game,
        person,
        agent.as_mut(),
        stdin.lock(),
        std::io::stdout().lock(),
        echo,
    )?;
    Ok(())
}
