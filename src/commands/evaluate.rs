//! `evaluate`: the evaluation stage of a run (`othello_eval::stage`), with the run config's `[eval]` settings
//! under the flags given.

use std::path::PathBuf;

use anyhow::Result;
use othello_eval::stage::{self, EvaluateOptions, Gating};
use othello_players::AgentSpec;
use othello_run::RunDir;
use othello_search::PlayerSearch;

use super::arena::MatchArgs;
use super::report::Report;
use crate::flags::{positive, thread_count};
use crate::run_config::RunConfig;

/// Rate a training run's checkpoints: the evaluation stage of `run`, alone.
///
/// Each checkpoint (network + its search) in a gauntlet against the checkpoint before it and the fixed ladder, from the
/// rung nearest that checkpoint's Elo up and down until it wins or loses every game of a pairing; games in RUN/eval
/// (resumable), then the ratings and RUN/eval/ratings.svg (Elo against training step, wall time and self-play
/// positions) and the newest Elo in TensorBoard (RUN/logs/eval); with [eval] optimal_moves_empties, every player's
/// moves against the solver, each checkpoint's as it is rated (RUN/eval/optimal-moves.csv and .svg); with [eval]
/// final_player_sims and without --watch, the newest checkpoint once more with a search of that size. Unset
/// flags come from the run config's [eval].
#[derive(clap::Args)]
pub struct EvaluateArgs {
    /// The run directory (it must exist).
    #[arg(long)]
    run: PathBuf,
    /// The fixed players (agent specs; see `arena --help`).
    #[arg(long, num_args = 1..)]
    ladder: Option<Vec<AgentSpec>>,
    /// Games per pairing.
    #[arg(long, value_parser = positive::<u32>)]
    games: Option<u32>,
    /// The checkpoints' simulations per move (the rest of their search is self-play's).
    #[arg(long, value_parser = positive::<u32>)]
    sims: Option<u32>,
    /// Rate every N-th checkpoint (and the newest; watching, the newest first and the every-th one a pass).
    #[arg(long, value_parser = positive::<usize>)]
    every: Option<usize>,
    /// Games played at a time, one thread each.
    #[arg(long, value_parser = thread_count)]
    threads: Option<usize>,
    /// Keep watching RUN/models, rating each new checkpoint (the evaluation stage of `run`).
    #[arg(long)]
    watch: bool,
    /// Config file of a new run (default: the embedded one); a run keeps its RUN/config.toml, and a different one is
    /// refused.
    #[arg(long)]
    config: Option<PathBuf>,
    #[command(flatten)]
    games_from: MatchArgs,
}

pub fn evaluate(a: EvaluateArgs) -> Result<()> {
    let run = RunDir::new(&a.run);
    let config = RunConfig::for_existing_run(&run, a.config.as_deref())?;
    let _evaluation = othello_run::RoleLock::acquire(&run, "evaluation")?;
    let eval = &config.eval;
    let search = config.player_search();
    let search = PlayerSearch { sims: a.sims.unwrap_or(search.sims), ..search };
    let ladder = a.ladder.unwrap_or_else(|| eval.ladder.clone());
    let setup = a.games_from.setup_with(config.rules()?, a.threads.unwrap_or(eval.threads))?;
    let options = EvaluateOptions {
        run: &a.run,
        ladder: &ladder,
        games: a.games.unwrap_or(eval.games),
        search,
        every: a.every.unwrap_or(eval.every),
        gating: eval.gating.then(|| Gating::new(eval.gating_elo, eval.gating_pairs)),
        setup,
        watch: a.watch,
        optimal_moves_empties: eval.optimal_moves_empties,
        optimal_moves_positions: (eval.optimal_moves_positions > 0).then_some(eval.optimal_moves_positions),
        final_player_sims: eval.final_player_sims,
    };
    let mut report = Report::new();
    stage::evaluate(options, &mut |e| report.event(e))?;
    report.finish();
    Ok(())
}
