//! `nboard` and `gtp`: an agent served as an engine on standard input and output, for NBoard, GTP front ends and
//! other arenas.

use anyhow::Result;

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
