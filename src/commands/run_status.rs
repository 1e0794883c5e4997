//! What `run` shows of a run as it goes and at its end: the status lines (self-play's and the trainer's progress,
//! the evaluation's newest measures) and the closing line of what the run learnt, read from the run directory.

use othello_eval::stage::searches_with;
use othello_net::{newest_checkpoint, read_info};
use othello_players::AgentSpec;
use othello_run::RunDir;
use othello_search::PlayerSearch;

use crate::run_config::RunConfig;

/// ", then the final player (its N-simulation search)" where the config has one, else nothing.
pub(crate) fn final_player_clause(config: &RunConfig) -> String {
    EvalSearches::of(config)
        .final_player
        .as_ref()
        .map_or(String::new(), |search| format!(", then the final player (its {}-simulation search)", search.sims))
}

/// What the status view shows, read from the run directory.
#[derive(Clone, Default)]
pub(crate) struct Status {
    /// Self-play games stored (whole shards).
    pub(crate) games: u64,
    pub(crate) step: u64,
    pub(crate) positions: u64,
    /// The replay window the trainer draws from (0 before its first log line).
    pub(crate) window: u64,
    /// The policy and value losses of the newest logged steps (none before the first step).
    pub(crate) losses: Option<(f32, f32)>,
    /// The newest rated checkpoint: its step, Elo and 95% interval.
    pub(crate) elo: Option<(u64, f64, f64)>,
    /// The newest checkpoint put to the solver's positions: its step and the share of them it played perfectly.
    pub(crate) optimal_moves: Option<(u64, f64)>,
    /// Self-play's simulations a full search, shown while they grow with the checkpoint's step.
    pub(crate) sims: Option<u32>,
}

impl Status {
    pub(crate) fn read(run: &RunDir, config: &RunConfig) -> Status {
        let mut status = Status::default();
        let games_per_shard = config.selfplay.games_per_shard as u64;
        let shards = std::fs::read_dir(run.replay()).map_or(0, |d| {
            d.filter_map(|e| e.ok()).filter(|e| e.file_name().to_string_lossy().ends_with(".npz")).count()
        });
        status.games = shards as u64 * games_per_shard;
        // The training log moves every few steps; checkpoints come far apart on a large board.
        if let Some(row) = othello_train::log::read_scalars(&run.scalars()).ok().and_then(|mut rows| rows.pop()) {
            let column =
                |name: &str| othello_train::log::COLUMNS.iter().position(|c| *c == name).map_or(f64::NAN, |i| row[i]);
            status.step = column("step") as u64;
            status.positions = column("positions") as u64;
            status.window = column("window") as u64;
            status.losses = Some((column("policy_loss") as f32, column("value_loss") as f32));
        } else if let Some(info) = newest_checkpoint(&run.models()).and_then(|m| read_info(&m).ok()) {
            status.step = info.step;
            if let Some(t) = info.training {
                status.positions = t.positions_seen;
                // The random init's sidecar has none.
                status.losses = t.losses.get("policy_loss").copied().zip(t.losses.get("value_loss").copied());
            }
        }
        let eval = othello_eval::arena::ArenaDir::new(run.eval());
        let curve = EvalSearches::of(config).curve;
        status.elo = newest_rated(&eval, &curve);
        status.optimal_moves = checkpoints_against_solver(&eval, &curve).pop();
        if config.selfplay.final_sims.is_some() {
            let model = othello_net::selfplay_checkpoint(run, config.eval.gating);
            let step = model.and_then(|m| read_info(&m).ok()).map_or(0, |info| info.step);
            status.sims = Some(config.selfplay.sims_at(step));
        }
        status
    }

    /// Self-play's and the trainer's progress.
    pub(crate) fn training_line(&self) -> String {
        let sims = self.sims.map_or(String::new(), |n| format!("  simulations {n}"));
        let losses = self.losses.map_or("losses: not trained yet".to_string(), |(policy, value)| {
            format!("policy loss {policy:.3}  value loss {value:.3}")
        });
        format!("step {}{sims}  positions {}  window {}  {losses}", self.step, self.positions, self.window)
    }

    /// The evaluation's newest measures.
    pub(crate) fn evaluation_line(&self) -> String {
        let elo = self.elo.map_or("Elo: not rated yet".to_string(), |(step, elo, ci)| {
            format!("Elo {elo:+.0} +- {ci:.0} (step {step})")
        });
        let optimal = self
            .optimal_moves
            .map_or(String::new(), |(step, rate)| format!("  optimal moves {:.1}% (step {step})", 100.0 * rate));
        elo + &optimal
    }
}

/// The searches the evaluation rates checkpoints with: the curve's, and the final player's with its simulations.
pub(crate) struct EvalSearches {
    curve: PlayerSearch,
    final_player: Option<PlayerSearch>,
}

impl EvalSearches {
    pub(crate) fn of(config: &RunConfig) -> EvalSearches {
        let curve = config.player_search();
        let final_player = (config.eval.final_player_sims)
            .filter(|&n| n != curve.sims)
            .map(|sims| PlayerSearch { sims, ..curve.clone() });
        EvalSearches { curve, final_player }
    }
}

/// The checkpoints among `measures` (player, measure) played with `search`, oldest first: each one's step and
/// measure.
fn checkpoints_by_step<'a, T>(
    measures: impl Iterator<Item = (&'a AgentSpec, T)>,
    search: &PlayerSearch,
) -> Vec<(u64, T)> {
    let mut checkpoints: Vec<(u64, T)> = measures
        .filter(|(player, _)| searches_with(player, search))
        .filter_map(|(player, measure)| {
            let (_, _, info) = othello_eval::ratings_plot::rated_checkpoint(player)?;
            Some((info.step, measure))
        })
        .collect();
    checkpoints.sort_by_key(|(step, _)| *step);
    checkpoints
}

/// The checkpoints with `search` in an evaluation's ratings, oldest first: each one's step, Elo and 95% interval.
fn rated_checkpoints(table: &othello_eval::arena::RatingsTable, search: &PlayerSearch) -> Vec<(u64, (f64, f64))> {
    checkpoints_by_step(table.ratings.iter().map(|r| (&r.player, (r.elo, r.interval95))), search)
}

/// The checkpoints with `search` in an evaluation's `optimal-moves.csv`, oldest first: each one's step and
/// optimal-move rate.
fn checkpoints_against_solver(eval: &othello_eval::arena::ArenaDir, search: &PlayerSearch) -> Vec<(u64, f64)> {
    let Ok(records) = eval.read_optimal_moves() else { return vec![] };
    checkpoints_by_step(records.iter().map(|r| (&r.player, r.report.optimal_rate())), search)
}

/// The newest checkpoint with `search` in an evaluation's `ratings.json`: its step, Elo and 95% interval.
fn newest_rated(eval: &othello_eval::arena::ArenaDir, search: &PlayerSearch) -> Option<(u64, f64, f64)> {
    let newest = rated_checkpoints(&eval.read_ratings().ok()?, search).pop();
    newest.map(|(step, (elo, interval))| (step, elo, interval))
}

/// What the run learnt, for its end: the oldest and the newest checkpoint rated with the curve's search, their Elo
/// beside the ladder's anchor and strongest rung and their rates against the solver; then the final player's Elo,
/// its scores against the same checkpoint with the curve's search and against that rung, and its rate against the
/// solver. None before a checkpoint is rated.
pub(crate) fn learning_summary(eval: &othello_eval::arena::ArenaDir, searches: &EvalSearches) -> Option<String> {
    fn first_to_last<T>(checkpoints: &[(u64, T)], show: impl Fn(&T) -> String) -> Option<String> {
        let ((first_step, first), (last_step, last)) = (checkpoints.first()?, checkpoints.last()?);
        Some(match checkpoints.len() {
            1 => format!("{} (step {first_step})", show(first)),
            _ => format!("{} (step {first_step}) -> {} (step {last_step})", show(first), show(last)),
        })
    }
    let show_elo = |(elo, interval): &(f64, f64)| format!("{elo:+.0} +- {interval:.0}");
    let show_rate = |rate: &f64| format!("{:.1}%", 100.0 * rate);
    let table = eval.read_ratings().ok()?;
    let elo = first_to_last(&rated_checkpoints(&table, &searches.curve), show_elo)?;
    let mut summary = format!("Elo {elo}");
    let rungs = table
        .ratings
        .iter()
        .filter(|r| r.player != table.anchor && othello_eval::ratings_plot::rated_checkpoint(&r.player).is_none());
    let top = rungs.max_by(|a, b| a.elo.total_cmp(&b.elo));
    summary += &match top {
        Some(top) => format!(" ({} {:+.0}, {} {:+.0})", table.anchor, table.anchor_elo, top.player, top.elo),
        None => format!(" ({} {:+.0})", table.anchor, table.anchor_elo),
    };
    if let Some(rates) = first_to_last(&checkpoints_against_solver(eval, &searches.curve), show_rate) {
        summary += &format!("; the solver's move {rates}");
    }
    let Some(search) = &searches.final_player else { return Some(summary) };
    let sims = search.sims;
    let players = table.ratings.iter().filter(|r| searches_with(&r.player, search));
    let stepped = players.filter_map(|r| Some((othello_eval::ratings_plot::rated_checkpoint(&r.player)?.2.step, r)));
    let Some((step, player)) = stepped.max_by_key(|(step, _)| *step) else { return Some(summary) };
    summary += &format!(
        "; the final player (step {step} with {sims} simulations): Elo {}",
        show_elo(&(player.elo, player.interval95))
    );
    if let Ok(rows) = eval.read() {
        // Its score against the same network with the curve's search (its spec with that search in place of its
        // own), and against the ladder's strongest rung.
        let final_player = &player.player;
        let same_network = final_player.model().map(|model| {
            let name = format!("step {step} with {} simulations", searches.curve.sims);
            (AgentSpec::net(model, searches.curve.clone()), name)
        });
        let top_rung = top.map(|r| (r.player.clone(), r.player.to_string()));
        for (opponent, name) in [same_network, top_rung].into_iter().flatten() {
            let (points, games) = rows.iter().fold((0.0, 0), |(points, games), r| {
                let (black, white) = (r.black == *final_player, r.white == *final_player);
                match (black && r.white == opponent, white && r.black == opponent) {
                    (true, _) => (points + r.black_score, games + 1),
                    (_, true) => (points + 1.0 - r.black_score, games + 1),
                    _ => (points, games),
                }
            });
            if games > 0 {
                summary += &format!(", {:.1}% of {games} games against {name}", 100.0 * points / games as f64);
            }
        }
    }
    let record =
        eval.read_optimal_moves().ok().and_then(|records| records.into_iter().find(|r| r.player == player.player));
    if let Some(record) = record {
        summary += &format!(", the solver's move {}", show_rate(&record.report.optimal_rate()));
    }
    Some(summary)
}

/// Writes the sidecar of a checkpoint of `step`: all that `Status` reads of a checkpoint.
#[cfg(test)]
pub(crate) fn checkpoint(run: &RunDir, step: u64) -> std::path::PathBuf {
    let info = othello_net::CheckpointInfo::untrained(Default::default(), step);
    let path = run.models().join(format!("model-{step:09}.json"));
    std::fs::create_dir_all(run.models()).unwrap();
    std::fs::write(&path, serde_json::to_string(&info).unwrap()).unwrap();
    path
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A record of `optimal` positions played perfectly of 40.
    fn record(player: String, optimal: usize) -> othello_eval::optimal_moves::OptimalMovesRow {
        othello_eval::optimal_moves::OptimalMovesRow {
            player: player.parse().unwrap(),
            report: othello_eval::OptimalMovesReport {
                positions: 40,
                optimal,
                result_kept: 40,
                total_loss: 0,
                total_squared_loss: 0,
            },
            position_set: "fixed-0".into(),
        }
    }

    /// With growing simulations the status line shows those of the checkpoint self-play plays with: the newest,
    /// or in a gated run the best; without them it shows none.
    #[test]
    fn the_status_line_shows_the_simulations_of_self_plays_checkpoint() {
        let scratch = tempfile::tempdir().unwrap();
        let run = RunDir::new(scratch.path());
        let mut config = RunConfig::parse("[selfplay]\nsims = 32\n", "s.toml").unwrap();
        assert_eq!(Status::read(&run, &config).sims, None);
        (config.selfplay.final_sims, config.selfplay.sims_ramp_steps) = (Some(128), 1000);
        assert_eq!(Status::read(&run, &config).sims, Some(32), "the random init is step 0");
        let older = checkpoint(&run, 250);
        checkpoint(&run, 500);
        let status = Status::read(&run, &config);
        // 32 + 96 * 500 / 1000.
        assert_eq!(status.sims, Some(80));
        assert!(status.training_line().contains("simulations 80"), "{}", status.training_line());
        config.eval.gating = true;
        othello_net::set_best_checkpoint(&run, &older).unwrap();
        assert_eq!(Status::read(&run, &config).sims, Some(56));
        (config.eval.gating, config.selfplay.final_sims) = (false, None);
        let status = Status::read(&run, &config);
        assert!(!status.training_line().contains("simulations"), "{}", status.training_line());
    }

    /// Before the trainer's first step (its random init has no losses) the line says so, and shows no NaN; then
    /// the checkpoint's losses.
    #[test]
    fn the_status_line_shows_losses_once_the_trainer_has_some() {
        let scratch = tempfile::tempdir().unwrap();
        let run = RunDir::new(scratch.path());
        let config = RunConfig::parse("", "s.toml").unwrap();
        let trained = |step: u64, losses: &[(&str, f32)]| {
            let path = checkpoint(&run, step);
            let mut info: othello_net::CheckpointInfo =
                serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            info.training = Some(othello_net::TrainingInfo {
                rules: "othello".into(),
                positions_seen: 0,
                window: 0,
                losses: losses.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
                config_hash: String::new(),
                optimizer_state: None,
                written_at: 0,
                run_seconds: None,
            });
            std::fs::write(&path, serde_json::to_string(&info).unwrap()).unwrap();
        };
        trained(0, &[]);
        let line = Status::read(&run, &config).training_line();
        assert!(line.contains("losses: not trained yet") && !line.contains("NaN"), "{line}");
        trained(250, &[("policy_loss", 1.5), ("value_loss", 0.75)]);
        let line = Status::read(&run, &config).training_line();
        assert!(line.contains("step 250") && line.contains("policy loss 1.500  value loss 0.750"), "{line}");
    }

    /// The evaluation's line shows the newest checkpoint's rate against the solver once the evaluation has put one
    /// to its positions, whatever order the records are in (a final player's, with a search of its own, is not the
    /// curve's); before that, none.
    #[test]
    fn the_status_line_shows_the_newest_checkpoints_optimal_moves() {
        use othello_eval::optimal_moves::optimal_moves_csv;
        let scratch = tempfile::tempdir().unwrap();
        let run = RunDir::new(scratch.path());
        let config = RunConfig::parse("[eval]\nsims = 8\nfinal_player_sims = 80\n", "s.toml").unwrap();
        assert!(!Status::read(&run, &config).evaluation_line().contains("optimal"));
        let spec = |step, sims| format!("net:model={},sims={sims}", checkpoint(&run, step).display());
        let rows = [
            record(spec(500, 80), 40),
            record(spec(500, 8), 30),
            record("random".into(), 10),
            record(spec(250, 8), 20),
        ];
        std::fs::create_dir_all(run.eval()).unwrap();
        let eval = othello_eval::arena::ArenaDir::new(run.eval());
        std::fs::write(eval.optimal_moves_csv(), optimal_moves_csv(&rows)).unwrap();
        let line = Status::read(&run, &config).evaluation_line();
        assert!(line.contains("optimal moves 75.0% (step 500)"), "{line}");
    }

    /// The run's last line names the oldest and the newest checkpoint rated with the curve's search, their Elo
    /// beside the anchor and the strongest rung (not a checkpoint, however strong) and their rates against the
    /// solver; then the final player (the newest checkpoint with its own search): its Elo, its scores against the
    /// same checkpoint with the curve's search and against that rung (hand-counted below) and its rate. Nothing
    /// before a checkpoint is rated.
    #[test]
    fn the_runs_end_sums_up_from_the_oldest_to_the_newest_checkpoint_and_the_final_player() {
        use othello_eval::arena::{ArenaDir, RatedPlayer, RatingsTable, COLUMNS};
        use othello_eval::optimal_moves::optimal_moves_csv;
        let scratch = tempfile::tempdir().unwrap();
        let run = RunDir::new(scratch.path());
        std::fs::create_dir_all(run.eval()).unwrap();
        let eval = ArenaDir::new(run.eval());
        let search = |sims| PlayerSearch::new(sims, None, othello_search::MctsConfig::default());
        let searches = EvalSearches { curve: search(8), final_player: Some(search(64)) };
        assert_eq!(learning_summary(&eval, &searches), None);
        let spec = |step, sims| format!("net:model={},sims={sims}", checkpoint(&run, step).display());
        let rated = |player: String, elo: f64, interval95: f64| RatedPlayer {
            player: player.parse().unwrap(),
            elo,
            interval95,
            std_error: interval95 / 1.96,
            games: 20,
            score: 10.0,
        };
        let mut table = RatingsTable {
            anchor: "random".parse().unwrap(),
            anchor_elo: 0.0,
            games: 100,
            ratings: vec![rated("random".into(), 0.0, 0.0), rated(spec(250, 8), 200.0, 90.0)],
        };
        eval.write_ratings(&table).unwrap();
        assert_eq!(learning_summary(&eval, &searches).unwrap(), "Elo +200 +- 90 (step 250) (random +0)");
        table.ratings = vec![
            rated(spec(750, 8), 812.4, 150.2),
            rated("positional:depth=4".into(), 390.0, 100.0),
            rated(spec(750, 64), 1020.0, 180.0),
            rated(spec(0, 8), 149.6, 105.0),
            rated(spec(500, 64), 900.0, 170.0),
            rated("random".into(), 0.0, 0.0),
            rated(spec(500, 8), 700.0, 140.0),
        ];
        eval.write_ratings(&table).unwrap();
        let rows = [
            record(spec(750, 8), 32),
            record("random".into(), 10),
            record(spec(0, 8), 17),
            record(spec(750, 64), 37),
            record(spec(500, 64), 36),
        ];
        std::fs::write(eval.optimal_moves_csv(), optimal_moves_csv(&rows)).unwrap();
        let curve = "Elo +150 +- 105 (step 0) -> +812 +- 150 (step 750) (random +0, positional:depth=4 +390); \
                     the solver's move 42.5% (step 0) -> 80.0% (step 750)";
        let final_player = "; the final player (step 750 with 64 simulations): Elo +1020 +- 180";
        assert_eq!(
            learning_summary(&eval, &searches).unwrap(),
            format!("{curve}{final_player}, the solver's move 92.5%")
        );
        // Its games against the strongest rung, from either side: 1 + 0.5 + 1 of 3 (the older final player's and
        // the curve's games not counted).
        let game = |key: &str, black: &str, white: &str, score: &str| {
            let quoted = |s: &str| format!("\"{s}\"");
            format!("{key},0,{},{},c4,20,16,{score},normal,,30,0,0\n", quoted(black), quoted(white))
        };
        let (last, older, curve_last) = (spec(750, 64), spec(500, 64), spec(750, 8));
        let text = COLUMNS.join(",")
            + "\n"
            + &game("a", &last, "positional:depth=4", "1")
            + &game("b", "positional:depth=4", &last, "0.5")
            + &game("c", "positional:depth=4", &last, "0")
            + &game("d", &older, "positional:depth=4", "0")
            + &game("e", &curve_last, "positional:depth=4", "0")
            + &game("f", &last, "random", "1");
        std::fs::write(eval.results(), &text).unwrap();
        assert_eq!(
            learning_summary(&eval, &searches).unwrap(),
            format!("{curve}{final_player}, 83.3% of 3 games against positional:depth=4, the solver's move 92.5%")
        );
        // And against the same network with the curve's search, first: 1 + 0 + 0.5 of 3 (an older checkpoint's
        // curve player not counted).
        let text = text
            + &game("g", &last, &curve_last, "1")
            + &game("h", &curve_last, &last, "1")
            + &game("i", &last, &curve_last, "0.5")
            + &game("j", &last, &spec(500, 8), "1");
        std::fs::write(eval.results(), text).unwrap();
        assert_eq!(
            learning_summary(&eval, &searches).unwrap(),
            format!(
                "{curve}{final_player}, 50.0% of 3 games against step 750 with 8 simulations, 83.3% of 3 games \
                 against positional:depth=4, the solver's move 92.5%"
            )
        );
        // Without a final player's search, the curve alone.
        let curve_only = EvalSearches { final_player: None, ..searches };
        assert_eq!(learning_summary(&eval, &curve_only).unwrap(), curve);
    }
}
