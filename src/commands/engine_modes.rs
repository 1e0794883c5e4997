//! `nboard`, `gtp` and `play`: an agent on standard input and output, served as an engine for NBoard, GTP front
//! ends and other arenas, or playing a person at the terminal.

use std::io::IsTerminal;

use anyhow::{Context, Result};
use othello_players::{Agent, AgentSpec};

/// Serve an agent as an engine on standard input and output: `nboard` speaks NBoard's protocol 2, `gtp` the Go Text
/// Protocol with Edax's Othello commands.
#[derive(clap::Args)]
pub struct ServeArgs {
    /// An agent spec (see `arena --help`); by default the shipped 8x8 network with its search.
    #[arg(long)]
    agent: Option<AgentSpec>,
    /// Seeds the agent.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// The colour a person plays in `play`.
#[derive(Clone, Copy, clap::ValueEnum)]
enum PersonColor {
    Black,
    White,
}

/// Play against an agent in the terminal.
///
/// Shows the board after every move, your moves typed as squares (such as d3), `undo` to take your last move back,
/// `quit` to stop; the game's transcript at the end.
#[derive(clap::Args)]
pub struct PlayArgs {
    /// Your opponent, an agent spec (see `arena --help`), such as net:model=runs/quickstart,sims=400; by default
    /// the shipped network for the rules, with its search.
    #[arg(long)]
    agent: Option<AgentSpec>,
    /// The colour you play.
    #[arg(long, value_enum, default_value = "black")]
    color: PersonColor,
    /// A transcript of the moves the game starts after (empty: the start).
    #[arg(long, default_value = "")]
    from: String,
    #[arg(long, default_value = "othello", help = crate::flags::rules_help!(""))]
    rules: othello_core::Rules,
    /// Seeds the agent.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// The agent given, else the shipped network for `rules`.
fn agent_or_shipped(agent: Option<AgentSpec>, rules: &othello_core::Rules) -> Result<AgentSpec> {
    agent.map_or_else(|| crate::shipped::default_player(rules), Ok)
}

pub fn nboard_command(args: ServeArgs) -> Result<()> {
    nboard(&agent_or_shipped(args.agent, &othello_core::Rules::othello())?, args.seed)
}

pub fn gtp_command(args: ServeArgs) -> Result<()> {
    gtp(&agent_or_shipped(args.agent, &othello_core::Rules::othello())?, args.seed)
}

pub fn play_command(args: PlayArgs) -> Result<()> {
    let color = match args.color {
        PersonColor::Black => othello_core::Color::Black,
        PersonColor::White => othello_core::Color::White,
    };
    play(&agent_or_shipped(args.agent, &args.rules)?, color, &args.from, args.rules, args.seed)
}

pub fn nboard(agent: &AgentSpec, seed: u64) -> Result<()> {
    let agent = agent.agent(seed)?;
    let session = othello_players::nboard::NboardSession::new(agent);
    othello_players::serve::serve(session, std::io::stdin().lock(), std::io::stdout().lock())?;
    Ok(())
}

pub fn gtp(agent: &AgentSpec, seed: u64) -> Result<()> {
    let agent = agent.agent(seed)?;
    let session = othello_players::gtp::GtpSession::new(agent);
    othello_players::serve::serve(session, std::io::stdin().lock(), std::io::stdout().lock())?;
    Ok(())
}

pub fn play(
    agent: &AgentSpec,
    person: othello_core::Color,
    from: &str,
    rules: othello_core::Rules,
    seed: u64,
) -> Result<()> {
    let mut agent = agent.agent(seed)?;
    agent.check_rules(&rules)?;
    let game = othello_core::Game::from_transcript(rules, from).with_context(|| format!("--from {from}"))?;
    let stdin = std::io::stdin();
    let echo = !stdin.is_terminal();
    othello_players::human_play::play_against_person(
        game,
        person,
        agent.as_mut(),
        stdin.lock(),
        std::io::stdout().lock(),
        echo,
    )?;
    Ok(())
}
