//! `arena` (games between agents, resumable, with live standings), `ratings` (the Elo table of stored games) and
//! `sprt` (a sequential test between two agents): thin wrappers over `othello_eval::matches`.

use std::path::PathBuf;

use anyhow::Result;
use othello_core::Rules;
use othello_eval::arena::schedule;
use othello_eval::matches::{self, MatchSetup, SprtOptions};
use othello_eval::openings::{OpeningSource, OpeningSourceError};
use othello_players::AgentSpec;

use super::report::Report;
use crate::flags::{positive, thread_count};

/// How the games of `arena`, `sprt` and `evaluate` are set up.
#[derive(clap::Args)]
pub struct MatchArgs {
    #[arg(long, help = crate::flags::rules_help!(" (default: othello; `evaluate`: the run's own)"))]
    rules: Option<Rules>,
    /// Seeds the openings and every agent of every game.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Where each pair starts: `shipped` (the repository's balanced set for 8x8 and 6x6 Othello, else random
    /// plies), `random` (--opening-plies seeded random moves), or an openings file (one transcript per line).
    #[arg(long, default_value = "shipped")]
    openings: String,
    /// Random plies from the start that make each pair's opening, where openings are random.
    #[arg(long, default_value_t = 4)]
    opening_plies: u32,
}

impl MatchArgs {
    fn rules(&self) -> Rules {
        self.rules.unwrap_or_default()
    }

    /// The setup of games under `rules`, which a `--rules` given must agree with.
    pub fn setup_with(&self, rules: Rules, threads: usize) -> Result<MatchSetup> {
        if let Some(asked) = self.rules.filter(|asked| *asked != rules) {
            anyhow::bail!("--rules {asked}: these games are played under {rules} (the run's config)");
        }
        Ok(MatchSetup { rules, seed: self.seed, openings: self.opening_source(&rules)?, threads })
    }

    fn opening_source(&self, rules: &Rules) -> Result<OpeningSource> {
        OpeningSource::named(&self.openings, self.opening_plies, rules).map_err(|e| match e {
            OpeningSourceError::Read { .. } => anyhow::anyhow!("--openings {e}"),
            OpeningSourceError::TooManyPlies { .. } => anyhow::anyhow!("--opening-plies {e}"),
            OpeningSourceError::Parse { .. } => e.into(),
        })
    }
}

/// Play matches between agents and store every game in OUT; ends with the ratings
///
/// Games go to OUT/results.csv and OUT/games/*.ggf. A rerun resumes, playing only the games still missing, and agents
/// can join later.
///
/// Agents are specs, NAME[:KEY=VALUE,...][+endgameK] (a value with commas or spaces in double quotes):
///   random; greedy (most flips); positional:depth=N (alpha-beta on square weights and mobility);
///   pattern:depth=N or pattern:time=S[,exact=K] (PVS on the WTHOR-fitted pattern evaluation, 8x8 only);
///   mcts:sims=N (pure MCTS, random rollouts); policy:model=M[,temperature=T] (a network's raw policy);
///   net:model=M[,sims=N][,gumbel[=K]][,score=W][,qscale=C][,qrescale][,interior=puct|gumbel][,cpuct=C][,fpu=F]
///   [,device=D][,time=S][,total=S] (the network with its search, what is left out the network's shipped search;
///   M a checkpoint or a run directory; on the clock, S seconds a move or a game, sims the cap, the solver's move
///   once it proves the endgame in time);
///   engine:cmd="PROGRAM ARGS",protocol=nboard|gtp[,depth=N][,time=S][,startup=S][,total=S] (an external
///   engine: S seconds a move, default 10 (GRhino its level's pace), over once spent both on the wall clock and
///   on the processor, a silent engine's at 10 times S on the wall clock; startup seconds more for its first,
///   default 20; total seconds a game; an NBoard engine searches depth plies, default 60; a crash restarts it, its
///   standard error goes to OUT/engines.log, misbehaviour forfeits);
///   grhino:level=N[,cmd=PROGRAM][,time=S][,startup=S][,total=S] (Debian's GRhino, levels 1-5, 8x8 only);
///   +endgameK after any of them: perfect play from K empties.
#[derive(clap::Args)]
#[command(verbatim_doc_comment)]
pub struct ArenaArgs {
    /// The arena directory: games, results and ratings (created if new; a rerun continues it).
    #[arg(long)]
    out: PathBuf,
    /// The agents of a round robin (with --gauntlet: the gauntlet agent's opponents).
    #[arg(long, num_args = 1.., required = true)]
    agents: Vec<AgentSpec>,
    /// Play this agent against each of the others instead of a round robin.
    #[arg(long)]
    gauntlet: Option<AgentSpec>,
    /// Games per pairing (rounded up to pairs: each opening with both colours).
    #[arg(long, value_parser = positive::<u32>, default_value_t = 20)]
    games: u32,
    /// Games played at a time, one thread each.
    #[arg(long, value_parser = thread_count, default_value_t = 1)]
    threads: usize,
    #[command(flatten)]
    games_from: MatchArgs,
}

pub fn arena(a: ArenaArgs) -> Result<()> {
    let setup = a.games_from.setup_with(a.games_from.rules(), a.threads)?;
    let mut agents = a.agents;
    if let Some(g) = &a.gauntlet {
        if !agents.contains(g) {
            agents.push(g.clone());
        }
    }
    for spec in &agents {
        spec.check(&setup.rules)?;
    }
    let all = schedule(&agents, a.gauntlet.as_ref(), a.games)?;
    let mut report = Report::new();
    matches::play_scheduled(&a.out, &all, &setup, &mut |e| report.event(e))?;
    matches::rate(std::slice::from_ref(&a.out), &a.out, None, &mut |e| report.event(e))?;
    report.finish();
    Ok(())
}

/// The Elo ratings of arena directories or runs: a table, files and a picture.
///
/// Bradley-Terry, 95% intervals widened for paired games: a table, DIR/ratings.csv, DIR/ratings.json, and
/// DIR/ratings.svg when checkpoints were rated. Given several runs, rates them together on their common fixed ladder
/// and draws every run's Elo on one picture (against step, wall time and self-play positions): the comparison of two
/// training setups.
#[derive(clap::Args)]
pub struct RatingsArgs {
    /// Arena directories or run directories (a game stored by two counts once).
    #[arg(required = true, num_args = 1..)]
    dirs: Vec<PathBuf>,
    /// Where the ratings and the picture go (default: DIR itself for one directory, else ./ratings-comparison).
    #[arg(long)]
    out: Option<PathBuf>,
    /// The player whose rating is fixed, and at what: SPEC=ELO, or SPEC at 0 (default: random=0, else the first
    /// game's black).
    #[arg(long, value_parser = parse_anchor)]
    anchor: Option<(AgentSpec, f64)>,
    /// Also print the likelihood of superiority of every player over every other.
    #[arg(long)]
    los: bool,
}

/// `--anchor`: SPEC=ELO where the text before the last `=` is a spec, else the whole text as a spec (whose own
/// keys hold `=`) at 0.
fn parse_anchor(text: &str) -> Result<(AgentSpec, f64), String> {
    if let Some((spec, number)) = text.rsplit_once('=') {
        if let Ok(spec) = spec.parse::<AgentSpec>() {
            let elo = number.parse::<f64>().ok().filter(|e| e.is_finite());
            return elo.map(|elo| (spec, elo)).ok_or_else(|| format!("'{number}' is not a number"));
        }
    }
    text.parse::<AgentSpec>().map(|spec| (spec, 0.0)).map_err(|e| e.to_string())
}

pub fn ratings(a: RatingsArgs) -> Result<()> {
    let anchor = a.anchor.as_ref().map(|(spec, elo)| (spec, *elo));
    let out = matches::output_dir(a.out, &a.dirs, "ratings-comparison");
    let mut report = Report::new();
    report.los = a.los;
    matches::rate(&a.dirs, &out, anchor, &mut |e| report.event(e))?;
    report.finish();
    Ok(())
}

/// Sequential probability ratio test: is CANDIDATE stronger than BASELINE?
///
/// Plays game pairs of CANDIDATE against BASELINE until the log-likelihood ratio of "ELO1 stronger" against "ELO0
/// stronger" crosses a bound; games stored in OUT (a rerun continues), the decision in OUT/sprt.json.
#[derive(clap::Args)]
pub struct SprtArgs {
    /// The test's directory: its games and sprt.json.
    #[arg(long)]
    out: PathBuf,
    /// The agent tested (an agent spec; see `arena --help`).
    #[arg(long)]
    candidate: AgentSpec,
    /// The agent it is tested against.
    #[arg(long)]
    baseline: AgentSpec,
    /// H0: the candidate is this many Elo stronger.
    #[arg(long, default_value_t = 0.0)]
    elo0: f64,
    /// H1: the candidate is this many Elo stronger.
    #[arg(long, default_value_t = 30.0)]
    elo1: f64,
    /// The chance of accepting H1 when H0 holds.
    #[arg(long, default_value_t = 0.05)]
    alpha: f64,
    /// The chance of accepting H0 when H1 holds.
    #[arg(long, default_value_t = 0.05)]
    beta: f64,
    #[command(flatten)]
    games_from: MatchArgs,
    /// Stop undecided after this many pairs.
    #[arg(long, value_parser = positive::<u64>, default_value_t = 100_000)]
    max_pairs: u64,
}

pub fn sprt(a: SprtArgs) -> Result<()> {
    let m = &a.games_from;
    let options = SprtOptions {
        out: &a.out,
        candidate: &a.candidate,
        baseline: &a.baseline,
        test: othello_eval::sprt::Sprt::new(a.elo0, a.elo1, a.alpha, a.beta)?,
        rules: m.rules(),
        seed: m.seed,
        openings: m.opening_source(&m.rules())?,
        max_pairs: a.max_pairs,
    };
    let mut report = Report::new();
    matches::sprt(options, &mut |e| report.event(e))?;
    report.finish();
    Ok(())
}
