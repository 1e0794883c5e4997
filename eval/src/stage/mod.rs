//! The evaluation stage: the fixed ladder in a round robin of its own, then each of a run's checkpoints (network +
//! its search) in a gauntlet against the checkpoint rated before it and the ladder; games in
//! RUN/eval, then the ratings and their picture; optionally gating ([`Gating`]) and every player against the
//! solver ([`optimal_moves`]). Watching, again for every new checkpoint as it appears. Progress goes to a callback
//! as [`Event`]s, as the trainer's does.

pub mod config;
pub mod gating;
mod gauntlet;
mod log;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use othello_core::Rules;
use othello_search::PlayerSearch;
use thiserror::Error;

use crate::optimal_moves::fixed::{optimal_moves, OptimalMoves, OptimalMovesOptions, RunOptimalMoves};
pub use config::EvalConfig;
pub use gating::Gating;
use gauntlet::{weakest_first, Gauntlet};

use crate::arena::{schedule, ArenaDir, ArenaError};
use crate::events::Event;
use crate::matches::{play_scheduled, rate, MatchSetup};
use crate::ratings::Ratings;
use crate::ratings_plot::{curves_from, rated_checkpoint};
use othello_players::spec::AgentSpec;
use othello_players::AgentError;

#[derive(Debug, Error)]
pub enum StageError {
    #[error(transparent)]
    Arena(#[from] ArenaError),
    #[error(transparent)]
    Agent(#[from] AgentError),
    #[error(transparent)]
    Model(#[from] othello_net::CheckpointError),
    #[error(transparent)]
    Sprt(#[from] crate::sprt::SprtError),
    #[error("the evaluation's ladder names no player ([eval] ladder, --ladder)")]
    NoLadder,
    #[error("no checkpoint in {}", .0.display())]
    NoCheckpoint(PathBuf),
    #[error("{}: rules '{rules}': {problem}", model.display())]
    CheckpointRules { model: PathBuf, rules: String, problem: String },
    #[error("{} was trained on {trained}, but the run's config names {config}", model.display())]
    OtherRules { model: PathBuf, trained: Rules, config: Rules },
    #[error(
        "{dirs}: no position with a choice and at most {max_empties} empties in the games between untrained players"
    )]
    NoPositions { dirs: String, max_empties: u32 },
    #[error("{dirs}: no move{} with a choice and at most {max_empties} empties", player.as_ref().map_or(String::new(), |p| format!(" of '{p}'")))]
    NoMoves { dirs: String, max_empties: u32, player: Option<String> },
    #[error(transparent)]
    Log(#[from] othello_run::tensorboard::TensorboardError),
}

/// What `evaluate` rates.
pub struct EvaluateOptions<'a> {
    pub run: &'a Path,
    pub ladder: &'a [AgentSpec],
    pub games: u32,
    /// The checkpoints' search (see [`EvalConfig::player_search`]).
    pub search: PlayerSearch,
    /// Rate every this many checkpoints (the newest always, first when watching).
    pub every: usize,
    /// Test each rated checkpoint against the best so far and promote it when it is stronger.
    pub gating: Option<Gating>,
    pub setup: MatchSetup,
    /// Keep watching RUN/models and rate each new checkpoint as it appears (until killed): the newest first, and
    /// one every-th checkpoint not begun a pass.
    pub watch: bool,
    /// Every player's moves with at most this many empties against the solver: on fixed positions each checkpoint's
    /// as its gauntlet ends, on their own moves at the end (not watching); 0: none.
    pub optimal_moves_empties: u32,
    /// Those moves: choices in this many positions from the ladder's games, the same for all; None: their own.
    pub optimal_moves_positions: Option<usize>,
    /// Not watching: the newest checkpoint rated (and put to the solver) once more as the run's final player, with a
    /// search of this many simulations; None: not.
    pub final_player_sims: Option<u32>,
}

/// How often a watching evaluation looks for new checkpoints.
const WATCH_POLL: Duration = Duration::from_secs(5);

/// The ladder's rungs but the external engines whose program is not installed here (GRhino's levels, say), each
/// left out with a warning.
fn installed_rungs(ladder: &[AgentSpec], on_event: &mut dyn FnMut(Event)) -> Vec<AgentSpec> {
    ladder
        .iter()
        .filter(|spec| match spec.missing_program() {
            Some(why) => {
                on_event(Event::Warning { message: format!("the ladder's {spec} is left out: {why}") });
                false
            }
            None => true,
        })
        .cloned()
        .collect()
}

/// Rates a run's checkpoints (see the module's summary); returns when every checkpoint is rated, or never when
/// watching. Each checkpoint's Elo and rate of optimal moves go to TensorBoard too (`RUN/logs/eval`): a failure
/// there is a warning at once, and the error once the checkpoints are rated.
pub fn evaluate(o: EvaluateOptions, on_event: &mut dyn FnMut(Event)) -> Result<(), StageError> {
    let mut log = log::StageLog::new(othello_run::RunDir::new(o.run).eval_logs());
    rate_checkpoints(o, &mut |event| {
        let warning = log.record(&event);
        on_event(event);
        if let Some(message) = warning {
            on_event(Event::Warning { message });
        }
    })?;
    Ok(log.finish()?)
}

fn rate_checkpoints(mut o: EvaluateOptions, on_event: &mut dyn FnMut(Event)) -> Result<(), StageError> {
    let run = othello_run::RunDir::new(o.run);
    let installed = installed_rungs(o.ladder, on_event);
    let ladder = installed.as_slice();
    if ladder.is_empty() {
        return Err(StageError::NoLadder);
    }
    for spec in ladder {
        spec.check(&o.setup.rules)?;
    }
    let mut rated = 0;
    let player = AgentSpec::checkpoint_player;
    let mut curve = Curve { search: o.search.clone(), logged_step: None };
    // With fixed positions, each checkpoint is put to them as its gauntlet ends (stored at once, so that a stop
    // loses none and a long run does not end with all of them to ask); with their own moves (which later
    // checkpoints' games add to), at the end.
    let mut against_solver = o
        .optimal_moves_positions
        .filter(|_| o.optimal_moves_empties > 0)
        .map(|count| RunOptimalMoves::new(run.eval(), o.optimal_moves_empties, count));
    // Every-th checkpoints left by the last watching pass: the next pass follows at once.
    let mut waiting = false;
    loop {
        let models = othello_net::list_checkpoints(&run.models());
        if models.is_empty() || (models.len() == rated && !waiting) {
            if !o.watch {
                return Err(StageError::NoCheckpoint(run.models()));
            }
            std::thread::sleep(WATCH_POLL);
            continue;
        }
        rated = models.len();
        let last = models.len() - 1;
        let stored = ArenaDir::new(run.eval()).read()?;
        let mut first_rows: HashMap<&AgentSpec, usize> = HashMap::new();
        for (row, r) in stored.iter().enumerate() {
            for player in [&r.black, &r.white] {
                first_rows.entry(player).or_insert(row);
            }
        }
        let begun: Vec<Option<usize>> = models.iter().map(|m| first_rows.get(&player(m, &o.search)).copied()).collect();
        let chosen;
        (chosen, waiting) = checkpoints_to_rate(&models, o.every, o.watch, &begun);
        check_checkpoint_rules(&models[last], &o.setup.rules)?;
        if ladder.len() >= 2 {
            play_scheduled(&run.eval(), &schedule(ladder, None, o.games)?, &o.setup, on_event)?;
        }
        if let Some(gating) = &mut o.gating {
            // Oldest first, whatever order the ratings take: the first checkpoint is the first best.
            let oldest_first: Vec<&PathBuf> = models.iter().filter(|m| chosen.contains(m)).collect();
            gating.promote(&run, &oldest_first, &o.search, &o.setup, on_event)?;
        }
        let rungs = weakest_first(&ArenaDir::new(run.eval()).read()?, ladder);
        let mut met = ladder.to_vec();
        let mut rated_last = false;
        for model in &chosen {
            let spec = player(model, &o.search);
            let gauntlet = Gauntlet { spec: &spec, rungs: &rungs, games: o.games };
            // Watching, the ratings follow each round of games, so that `run` shows a checkpoint's Elo (with its
            // interval) from its first pairing on; TensorBoard gets it once, complete.
            let mut fit = None;
            let watch = o.watch;
            gauntlet.play(&run.eval(), &met, &o.setup, on_event, &mut |on_event| {
                if watch {
                    fit = Some(rate(&[run.eval()], &run.eval(), None, on_event)?);
                }
                Ok(())
            })?;
            rated_last = fit.is_some();
            if let Some(fit) = fit {
                curve.report(&fit, on_event);
            }
            met.push(spec);
            if let Some(against_solver) = &mut against_solver {
                ask_the_new_players(against_solver, &o.search, o.setup.threads, on_event)?;
            }
        }
        if let Some(sims) = o.final_player_sims.filter(|&s| !o.watch && s != o.search.sims) {
            // Against the same network with the evaluation's search, then the ladder from the rung nearest that
            // one: the games say what the larger search adds, and bound the final player's rating where it sweeps
            // the ladder's top but not that player.
            met.push(player(&models[last], &o.search));
            let spec = player(&models[last], &PlayerSearch { sims, ..o.search.clone() });
            let gauntlet = Gauntlet { spec: &spec, rungs: &rungs, games: o.games };
            on_event(Event::FinalPlayer { player: &spec });
            gauntlet.play(&run.eval(), &met, &o.setup, on_event, &mut |_| Ok(()))?;
            rated_last = false;
        }
        if !rated_last {
            let fit = rate(&[run.eval()], &run.eval(), None, on_event)?;
            curve.report(&fit, on_event);
        }
        if o.watch {
            continue;
        }
        let max_empties = o.optimal_moves_empties;
        if let Some(against_solver) = &mut against_solver {
            let Some(records) = ask_the_new_players(against_solver, &o.search, o.setup.threads, on_event)? else {
                let dirs = run.eval().display().to_string();
                return Err(StageError::NoPositions { dirs, max_empties });
            };
            on_event(Event::EveryPlayer { records: &records, counted: "positions", max_empties });
        } else if max_empties > 0 {
            let options = OptimalMovesOptions {
                dirs: &[run.eval()],
                out: &run.eval(),
                player: None,
                max_empties,
                fixed_positions: None,
                threads: o.setup.threads,
            };
            if let OptimalMoves::Every { records, counted } = optimal_moves(options, on_event)? {
                on_event(Event::EveryPlayer { records: &records, counted, max_empties });
            }
        }
        return Ok(());
    }
}

/// The run's checkpoints must be of the rules its config names.
fn check_checkpoint_rules(model: &Path, config: &Rules) -> Result<(), StageError> {
    let Some(rules) = othello_net::read_info(model).ok().and_then(|i| i.training).map(|t| t.rules) else {
        return Ok(());
    };
    let trained: Rules = rules.parse().map_err(|e| StageError::CheckpointRules {
        model: model.to_path_buf(),
        rules: rules.clone(),
        problem: format!("{e}"),
    })?;
    if trained != *config {
        return Err(StageError::OtherRules { model: model.to_path_buf(), trained, config: *config });
    }
    Ok(())
}

/// The run's curve: the checkpoints with the evaluation's search (a final player's search is another), each
/// reported once, at its step, as its Elo is known.
struct Curve {
    search: PlayerSearch,
    logged_step: Option<u64>,
}

impl Curve {
    /// Reports the Elo of the curve's checkpoints rated since the last call.
    fn report(&mut self, fit: &Ratings<AgentSpec>, on_event: &mut dyn FnMut(Event)) {
        let (curves, _) = curves_from(fit);
        let on_curve = curves.iter().filter(|c| c.player.as_ref().is_some_and(|p| searches_with(p, &self.search)));
        let mut points: Vec<_> = on_curve.flat_map(|c| c.points.iter()).collect();
        points.sort_by_key(|p| p.step);
        let logged = self.logged_step;
        for p in points.into_iter().filter(|p| logged.is_none_or(|s| p.step > s)) {
            on_event(Event::CheckpointElo { step: p.step, elo: p.value, interval95: p.high - p.value });
            self.logged_step = Some(p.step);
        }
    }
}

/// Whether `player` is a `net:` player with `search`.
pub fn searches_with(player: &AgentSpec, search: &PlayerSearch) -> bool {
    player.endgame.is_none() && player.search().as_ref() == Some(search)
}

/// Puts the evaluation's players not yet asked to the fixed positions, reporting each and storing every player's
/// record when one was asked; returns them, or None while the ladder's games hold no position.
fn ask_the_new_players(
    against_solver: &mut RunOptimalMoves,
    search: &PlayerSearch,
    threads: usize,
    on_event: &mut dyn FnMut(Event),
) -> Result<Option<Vec<crate::optimal_moves::OptimalMovesRow>>, StageError> {
    let Some((records, asked)) = against_solver.update(threads, on_event)? else { return Ok(None) };
    for r in records.iter().filter(|r| asked.contains(&r.player)) {
        // The curve's checkpoints only: the search is read off the spec before the checkpoint's sidecar is.
        let on_curve = searches_with(&r.player, search);
        let step = on_curve.then(|| rated_checkpoint(&r.player).map(|(_, _, info)| info.step)).flatten();
        on_event(Event::OptimalMoves { player: &r.player, report: &r.report, step });
    }
    if !asked.is_empty() {
        on_event(Event::Stored { what: against_solver.store()? });
    }
    Ok(Some(records))
}

/// The checkpoints (`models`, oldest first) an evaluation pass rates, in the order it rates them: those whose games
/// it has begun, in the order begun (`begun[i]`: the row of checkpoint i's first stored game), so that each keeps
/// the checkpoint rated before it; then the newest and every `every`-th not begun, in step order. Watching, the
/// newest first and only the newest of those every-th, so that when the evaluation falls behind the newest
/// checkpoint is rated next and the rest one a pass. The second value: whether every-th checkpoints not begun are
/// left for the next pass.
fn checkpoints_to_rate<'a>(
    models: &'a [PathBuf],
    every: usize,
    watch: bool,
    begun: &[Option<usize>],
) -> (Vec<&'a PathBuf>, bool) {
    let Some(last) = models.len().checked_sub(1) else { return (vec![], false) };
    let mut started: Vec<(usize, usize)> = begun.iter().enumerate().filter_map(|(i, b)| Some(((*b)?, i))).collect();
    started.sort();
    let waiting: Vec<usize> = (0..last).filter(|&i| i % every.max(1) == 0 && begun[i].is_none()).collect();
    let newest = begun[last].is_none().then_some(last);
    let (fresh, later): (Vec<usize>, bool) = if watch {
        (newest.into_iter().chain(waiting.last().copied()).collect(), waiting.len() > 1)
    } else {
        (waiting.into_iter().chain(newest).collect(), false)
    };
    (started.into_iter().map(|(_, i)| i).chain(fresh).map(|i| &models[i]).collect(), later)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Thirteen checkpoints, every third rated, three begun (5 before 0 before 4): the begun come first in the
    /// order begun; then, in one pass, the every-third not begun and the newest in step order; watching, the newest
    /// and the newest every-third not begun, saying whether more wait.
    #[test]
    fn a_watching_evaluation_rates_the_newest_next_and_one_waiting_checkpoint_a_pass() {
        let models: Vec<PathBuf> = (0..13).map(|i| PathBuf::from(format!("m/model-{i:09}.json"))).collect();
        let mut begun = vec![None; 13];
        (begun[5], begun[0], begun[4]) = (Some(0), Some(10), Some(20));
        let none = vec![None; 13];
        let steps = |(chosen, waiting): (Vec<&PathBuf>, bool)| -> (Vec<usize>, bool) {
            (chosen.iter().map(|m| models.iter().position(|n| n == *m).unwrap()).collect(), waiting)
        };
        assert_eq!(steps(checkpoints_to_rate(&models, 3, false, &begun)), (vec![5, 0, 4, 3, 6, 9, 12], false));
        assert_eq!(steps(checkpoints_to_rate(&models, 3, true, &begun)), (vec![5, 0, 4, 12, 9], true));
        // Eight checkpoints: 6 now, 3 later; seven: 3, the last waiting; six: the newest begun, 3 still waiting.
        assert_eq!(steps(checkpoints_to_rate(&models[..8], 3, true, &begun[..8])), (vec![5, 0, 4, 7, 6], true));
        assert_eq!(steps(checkpoints_to_rate(&models[..7], 3, true, &begun[..7])), (vec![5, 0, 4, 6, 3], false));
        assert_eq!(steps(checkpoints_to_rate(&models[..6], 3, true, &begun[..6])), (vec![5, 0, 4, 3], false));
        // Nothing begun: the newest and the every-third nearest it.
        assert_eq!(steps(checkpoints_to_rate(&models[..5], 3, true, &none[..5])), (vec![4, 3], true));
        assert_eq!(steps(checkpoints_to_rate(&models[..2], 3, true, &none[..2])), (vec![1, 0], false));
        assert_eq!(checkpoints_to_rate(&[], 3, true, &[]), (vec![], false));
    }

    /// A rung whose program is not there is left out with a warning that names it and why; the others stay, in
    /// order, installed engines among them (GRhino's program in a folder whose name has a space, as one word).
    #[test]
    fn a_rung_whose_program_is_missing_is_left_out_with_a_warning() {
        use std::os::unix::fs::PermissionsExt;
        let scratch = tempfile::tempdir().unwrap();
        let program = scratch.path().join("my engines").join("gtp-rhino");
        std::fs::create_dir(program.parent().unwrap()).unwrap();
        std::fs::write(&program, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
        let ladder: Vec<AgentSpec> = [
            "random".to_string(),
            "engine:cmd=\"/nonexistent/edax -nboard\",protocol=nboard".into(),
            "engine:cmd=\"sh -c true\",protocol=gtp".into(),
            format!("grhino:level=2,cmd=\"{}\"", program.display()),
            "greedy".into(),
        ]
        .map(|spec| spec.parse().unwrap())
        .to_vec();
        let mut warnings = vec![];
        let kept = installed_rungs(&ladder, &mut |event| {
            if let Event::Warning { message } = event {
                warnings.push(message)
            }
        });
        assert_eq!(kept, [&ladder[0], &ladder[2], &ladder[3], &ladder[4]].map(AgentSpec::clone));
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        let missing = ladder[1].to_string();
        assert!(warnings[0].contains(&missing) && warnings[0].contains("/nonexistent/edax"), "{warnings:?}");
    }

    /// A checkpoint's player is found by its search, whole: another simulation count, Gumbel setting or value
    /// scale is another player, as is the same search with a perfect endgame.
    #[test]
    fn the_curve_is_the_players_with_the_evaluations_search() {
        let search = PlayerSearch::new(64, Some(16), othello_search::MctsConfig::default());
        let player = AgentSpec::net("runs/a/models/model-000000010.json", search.clone());
        assert!(searches_with(&player, &search));
        assert!(searches_with(&"net:model=x,sims=64,gumbel".parse().unwrap(), &search));
        for other in [
            "net:model=x,sims=65,gumbel",
            "net:model=x,sims=64",
            "net:model=x,sims=64,gumbel,qscale=0.5",
            "net:model=x,sims=64,gumbel+endgame10",
            "pattern:depth=4",
        ] {
            assert!(!searches_with(&other.parse().unwrap(), &search), "{other}");
        }
    }
}
