//! `arena`: games between agents on several threads, stored as they end (resumable), with live standings; and
//! `ratings`: the Elo table of an arena directory.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use othello_core::Rules;
use othello_eval::arena::{
    default_anchor, play, rungs_to_play, schedule, sweep, ArenaDir, Pairing, RatingsTable, ResultRow,
};
use othello_eval::openings::OpeningSource;
use othello_eval::ratings::{fit, Ratings};
use othello_eval::ratings_plot::{curves_from, plot_curves};
use othello_eval::sprt::{Decision, Sprt};
use othello_selfplay::mcts::InteriorSelection;

/// How the games of a match are set up and run.
pub struct MatchSetup {
    pub rules: Rules,
    pub seed: u64,
    pub openings: OpeningSource,
    /// 1 or more: the command line and the run config refuse 0.
    pub threads: usize,
}

/// What `arena` plays.
pub struct ArenaOptions<'a> {
    pub out: &'a Path,
    pub agents: &'a [String],
    pub gauntlet: Option<&'a str>,
    pub games: u32,
    pub setup: MatchSetup,
}

pub fn arena(o: ArenaOptions) -> Result<()> {
    let mut agents = o.agents.to_vec();
    if let Some(g) = o.gauntlet {
        if !agents.iter().any(|a| a == g) {
            agents.push(g.to_string());
        }
    }
    for spec in &agents {
        othello_eval::check_spec(spec, &o.setup.rules)?;
    }
    let all = schedule(&agents, o.gauntlet, o.games)?;
    play_scheduled(o.out, &all, &o.setup)?;
    ratings(&[o.out.to_path_buf()], o.out, None, false).map(drop)
}

/// How many of the leading players the progress line names.
const LEADERS_SHOWN: usize = 3;

/// Plays the games of `all` not yet stored in the arena directory `out`, on the setup's threads, with live
/// standings.
pub fn play_scheduled(out: &Path, all: &[Pairing], setup: &MatchSetup) -> Result<()> {
    let dir = ArenaDir::new(out);
    dir.repair()?;
    // Every stored row, kept in memory as games end (the live standings fit them without rereading the file).
    let rows = Mutex::new(dir.read()?);
    let done: std::collections::HashSet<String> =
        rows.lock().unwrap_or_else(|e| e.into_inner()).iter().map(|r| r.key.clone()).collect();
    let todo: Vec<_> = all.iter().filter(|p| !done.contains(&p.key)).cloned().collect();
    eprintln!(
        "{} games scheduled, {} already in {}, {} to play on {} thread{}",
        all.len(),
        all.len() - todo.len(),
        dir.results().display(),
        todo.len(),
        setup.threads,
        super::plural(setup.threads)
    );
    let bar = ProgressBar::new(todo.len() as u64).with_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} games  {msg}  ETA {eta}").expect("a valid template"),
    );
    let (next, failure) = (AtomicUsize::new(0), Mutex::new(None));
    let started = Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..setup.threads {
            scope.spawn(|| {
                while let Some(p) = todo.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let opening = setup.openings.for_pair(&setup.rules, setup.seed, p.pair);
                    let result = play(&setup.rules, p, &opening, setup.seed).and_then(|played| {
                        // One writer at a time: rows are appended whole, and in the order kept in memory.
                        let mut rows = rows.lock().unwrap_or_else(|e| e.into_inner());
                        rows.push(dir.store(&played)?);
                        Ok(())
                    });
                    if let Err(e) = result {
                        *failure.lock().unwrap_or_else(|e| e.into_inner()) = Some(e);
                        next.store(todo.len(), Ordering::Relaxed);
                        return;
                    }
                    bar.inc(1);
                }
            });
        }
        // The leaders as the games arrive: on the bar every 2 s, or a plain line every 30 s when the output is not
        // a terminal. The fit over every stored game runs no more often, so that it takes no time from the games.
        let every = Duration::from_secs(if bar.is_hidden() { 30 } else { 2 });
        let mut last_line = Instant::now();
        while next.load(Ordering::Relaxed) < todo.len() || bar.position() < todo.len() as u64 {
            if failure.lock().unwrap_or_else(|e| e.into_inner()).is_some() {
                break;
            }
            std::thread::sleep(Duration::from_millis(500));
            if last_line.elapsed() < every {
                continue;
            }
            last_line = Instant::now();
            let rate = bar.position() as f64 / started.elapsed().as_secs_f64().max(1e-9);
            let standings = {
                let rows = rows.lock().unwrap_or_else(|e| e.into_inner());
                let games: Vec<_> = rows.iter().map(|r| r.as_game_result()).collect();
                default_anchor(&rows).and_then(|anchor| fit(&games, anchor, 0.0).ok())
            };
            let leaders = standings.map_or(String::new(), |s| {
                let players: Vec<&str> = s.ratings.iter().map(|r| r.player.as_str()).collect();
                let labels = progress_labels(&players);
                let mut shown: Vec<_> = (s.ratings.iter().zip(labels).take(LEADERS_SHOWN))
                    .map(|(r, label)| format!("{label} {:+.0}±{:.0}", r.elo, r.interval95()))
                    .collect();
                if s.ratings.len() > LEADERS_SHOWN {
                    shown.push(format!("and {} more", s.ratings.len() - LEADERS_SHOWN));
                }
                shown.join("  ")
            });
            bar.set_message(format!("{rate:.2} games/s  {leaders}"));
            if bar.is_hidden() {
                eprintln!("{}/{} games, {rate:.2} games/s  {leaders}", bar.position(), todo.len());
            }
        }
    });
    bar.finish_and_clear();
    if let Some(e) = failure.into_inner().unwrap_or_else(|e| e.into_inner()) {
        return Err(e.into());
    }
    eprintln!("{} games played in {:.1} s", todo.len(), started.elapsed().as_secs_f64());
    Ok(())
}

/// How the progress lines name the players: a checkpoint by its run's directory and its file's stem
/// (`runs/a/models/model-000000250.json` as `a/model-000000250`), alone where every checkpoint among them plays the
/// same search, else within its spec; other players by their specs. The tables keep the whole spec.
fn progress_labels(players: &[&str]) -> Vec<String> {
    use othello_eval::agent::{spec_parameter, spec_with_model};
    let searches: std::collections::HashSet<_> =
        players.iter().filter_map(|spec| spec_with_model(spec, |_| Some(String::new()))).collect();
    let checkpoint = |model: &str| {
        let path = Path::new(model);
        let stem = path.file_stem()?.to_str()?;
        let models = path.parent().filter(|p| p.file_name().is_some_and(|n| n == "models"));
        Some(match models.and_then(|m| m.parent()?.file_name()?.to_str()) {
            Some(run) => format!("{run}/{stem}"),
            None => stem.to_string(),
        })
    };
    let label = |spec: &str| match searches.len() {
        1 => checkpoint(&spec_parameter(spec, "model")?),
        _ => spec_with_model(spec, checkpoint),
    };
    players.iter().map(|spec| label(spec).unwrap_or_else(|| spec.to_string())).collect()
}

/// What `evaluate` rates.
pub struct EvaluateOptions<'a> {
    pub run: &'a Path,
    pub ladder: &'a [String],
    pub games: u32,
    pub simulations: u32,
    /// The checkpoints' search, as the run's self-play searches (but for the simulations).
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
    pub final_player_simulations: Option<u32>,
}

/// How often a watching evaluation looks for new checkpoints.
const WATCH_POLL: Duration = Duration::from_secs(5);

/// `evaluate`: the ladder in a round robin of its own, then each of a run's checkpoints (network + MCTS) in a
/// [`Gauntlet`] against the checkpoint rated before it and the ladder; games in RUN/eval, then the ratings and their
/// picture. With `watch`, again for every new checkpoint, rating each as its games end.
pub fn evaluate(mut o: EvaluateOptions) -> Result<()> {
    let run = othello_run::RunDir::new(o.run);
    anyhow::ensure!(!o.ladder.is_empty(), "the evaluation's ladder names no player ([eval] ladder, --ladder)");
    for spec in o.ladder {
        othello_eval::check_spec(spec, &o.setup.rules)?;
    }
    let mut rated = 0;
    let search = o.search.spec(o.simulations);
    let mut eval_log = EvalLog { dir: run.eval_logs(), writer: None, logged_step: None, search: search.clone() };
    // With fixed positions, each checkpoint is put to them as its gauntlet ends (stored at once, so that a stop
    // loses none and a long run does not end with all of them to ask); with their own moves (which later
    // checkpoints' games add to), at the end.
    let mut against_solver = o
        .optimal_moves_positions
        .filter(|_| o.optimal_moves_empties > 0)
        .map(|count| super::oracle::RunOptimalMoves::new(run.eval(), o.optimal_moves_empties, count));
    // Every-th checkpoints left by the last watching pass: the next pass follows at once.
    let mut waiting = false;
    loop {
        let models = othello_net::list_models(&run.models());
        if models.is_empty() || (models.len() == rated && !waiting) {
            anyhow::ensure!(o.watch, "no checkpoint in {}", run.models().display());
            std::thread::sleep(WATCH_POLL);
            continue;
        }
        rated = models.len();
        let last = models.len() - 1;
        let stored = ArenaDir::new(run.eval()).read()?;
        let mut first_rows: HashMap<&str, usize> = HashMap::new();
        for (row, r) in stored.iter().enumerate() {
            for player in [r.black.as_str(), r.white.as_str()] {
                first_rows.entry(player).or_insert(row);
            }
        }
        let begun: Vec<Option<usize>> =
            models.iter().map(|m| first_rows.get(checkpoint_spec(m, &search).as_str()).copied()).collect();
        let chosen;
        (chosen, waiting) = checkpoints_to_rate(&models, o.every, o.watch, &begun);
        // The run's checkpoints must be of the rules its config names.
        if let Some(rules) = othello_net::read_info(&models[last]).ok().and_then(|i| i.training).map(|t| t.rules) {
            let rules: Rules =
                rules.parse().map_err(|e| anyhow::anyhow!("{}: rules '{rules}': {e}", models[last].display()))?;
            anyhow::ensure!(
                rules == o.setup.rules,
                "{} was trained on {rules}, but the run's config names {}",
                models[last].display(),
                o.setup.rules
            );
        }
        if o.ladder.len() >= 2 {
            play_scheduled(&run.eval(), &schedule(o.ladder, None, o.games)?, &o.setup)?;
        }
        if let Some(gating) = &mut o.gating {
            // Oldest first, whatever order the ratings take: the first checkpoint is the first best.
            let oldest_first: Vec<&PathBuf> = models.iter().filter(|m| chosen.contains(m)).collect();
            gating.promote(&run, &oldest_first, &search, &o.setup)?;
        }
        let rungs = weakest_first(&ArenaDir::new(run.eval()).read()?, o.ladder);
        let mut met = o.ladder.to_vec();
        let mut rated_last = false;
        for model in &chosen {
            let spec = checkpoint_spec(model, &search);
            let gauntlet = Gauntlet { spec: &spec, rungs: &rungs, games: o.games };
            // Watching, the ratings follow each round of games, so that `run` shows a checkpoint's Elo (with its
            // interval) from its first pairing on; TensorBoard gets it once, complete.
            let mut fit = None;
            gauntlet.play(&run.eval(), &met, &o.setup, &mut || {
                if o.watch {
                    fit = Some(ratings(&[run.eval()], &run.eval(), None, false)?);
                }
                Ok(())
            })?;
            rated_last = fit.is_some();
            if let Some(fit) = fit {
                eval_log.write(&fit)?;
            }
            met.push(spec);
            if let Some(against_solver) = &mut against_solver {
                ask_the_new_players(against_solver, &mut eval_log, o.setup.threads)?;
            }
        }
        if let Some(simulations) = o.final_player_simulations.filter(|&s| !o.watch && s != o.simulations) {
            // Against the same network with the evaluation's search, then the ladder from the rung nearest that
            // one: the games say what the larger search adds, and bound the final player's rating where it sweeps
            // the ladder's top but not that player.
            met.push(checkpoint_spec(&models[last], &search));
            let spec = checkpoint_spec(&models[last], &o.search.spec(simulations));
            let gauntlet = Gauntlet { spec: &spec, rungs: &rungs, games: o.games };
            eprintln!("the final player: {spec}");
            gauntlet.play(&run.eval(), &met, &o.setup, &mut || Ok(()))?;
            rated_last = false;
        }
        if !rated_last {
            eval_log.write(&ratings(&[run.eval()], &run.eval(), None, false)?)?;
        }
        if !o.watch {
            if let Some(against_solver) = &mut against_solver {
                let Some(records) = ask_the_new_players(against_solver, &mut eval_log, o.setup.threads)? else {
                    anyhow::bail!(
                        "{}: no position with a choice and at most {} empties in the ladder's games",
                        run.eval().display(),
                        o.optimal_moves_empties
                    );
                };
                super::oracle::print_every_player(&records, "positions", o.optimal_moves_empties);
            } else if o.optimal_moves_empties > 0 {
                super::oracle::optimal_moves(super::oracle::OptimalMovesOptions {
                    dirs: &[run.eval()],
                    out: &run.eval(),
                    player: None,
                    max_empties: o.optimal_moves_empties,
                    fixed_positions: None,
                    threads: o.setup.threads,
                })?;
            }
            return Ok(());
        }
    }
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

/// The fit of the games in `rows` between `players` only, anchored to the first game's black (None without games).
fn fit_among(rows: &[ResultRow], players: &[String]) -> Option<Ratings> {
    let among: Vec<_> = rows
        .iter()
        .filter(|r| players.contains(&r.black) && players.contains(&r.white))
        .map(|r| r.as_game_result())
        .collect();
    among.first().and_then(|first| fit(&among, &first.black, 0.0).ok())
}

/// The ladder ordered by the Elo of its own round robin in `rows`, weakest first (as given where it has none).
fn weakest_first(rows: &[ResultRow], ladder: &[String]) -> Vec<String> {
    let mut order = ladder.to_vec();
    if let Some(fit) = fit_among(rows, ladder) {
        let elo = |spec: &String| fit.get(spec).map_or(f64::NEG_INFINITY, |r| r.elo);
        order.sort_by(|a, b| elo(a).total_cmp(&elo(b)));
    }
    order
}

/// One checkpoint's games: against the checkpoint rated before it, and against the ladder from the rung nearest
/// that checkpoint's Elo (the middle rung for the first), spreading up and down until a sweep each way
/// ([`rungs_to_play`]): a strong checkpoint plays no games against random, which would tell nothing.
struct Gauntlet<'a> {
    spec: &'a str,
    /// The ladder, weakest first.
    rungs: &'a [String],
    games: u32,
}

impl Gauntlet<'_> {
    /// Plays the games not yet stored in `dir`. `met`: the ladder and the checkpoints rated before this one (the
    /// last is the one before it), whose games alone place the start, so that a resumed evaluation spreads as the
    /// first did. `after_round` runs after each round of games (a pairing or two at a time).
    fn play(
        &self,
        dir: &Path,
        met: &[String],
        setup: &MatchSetup,
        after_round: &mut dyn FnMut() -> Result<()>,
    ) -> Result<()> {
        let arena = ArenaDir::new(dir);
        let mut rows = arena.read()?;
        let previous = met.last().filter(|p| !self.rungs.contains(p));
        let nearest_to_previous = previous.and_then(|previous| {
            let fit = fit_among(&rows, met)?;
            let at = fit.get(previous)?.elo;
            let distance = |i: &usize| fit.get(&self.rungs[*i]).map_or(f64::INFINITY, |r| (r.elo - at).abs());
            (0..self.rungs.len()).min_by(|a, b| distance(a).total_cmp(&distance(b)))
        });
        let start = nearest_to_previous.unwrap_or(self.rungs.len() / 2);
        let against =
            |opponent: &str| schedule(&[opponent.to_string(), self.spec.to_string()], Some(self.spec), self.games);
        let mut todo = match previous {
            Some(previous) => against(previous)?,
            None => vec![],
        };
        loop {
            let by_key: HashMap<&str, &ResultRow> = rows.iter().map(|r| (r.key.as_str(), r)).collect();
            let mut outcomes = Vec::with_capacity(self.rungs.len());
            for rung in self.rungs {
                outcomes.push(sweep(&by_key, self.spec, rung, self.games)?);
            }
            for i in rungs_to_play(self.rungs.len(), start, |i| outcomes[i]) {
                todo.extend(against(&self.rungs[i])?);
            }
            todo.retain(|p| !by_key.contains_key(p.key.as_str()));
            if todo.is_empty() {
                return Ok(());
            }
            let mut opponents: Vec<&str> = vec![];
            for p in &todo {
                let opponent = if p.black == self.spec { p.white.as_str() } else { p.black.as_str() };
                if !opponents.contains(&opponent) {
                    opponents.push(opponent);
                }
            }
            eprintln!("{}: against {}", self.spec, opponents.join(", "));
            play_scheduled(dir, &todo, setup)?;
            after_round()?;
            todo.clear();
            rows = arena.read()?;
        }
    }
}

/// The player a checkpoint is rated as: the network with `search` (its simulations, Gumbel's root, ...).
fn checkpoint_spec(model: &Path, search: &str) -> String {
    format!("net:model=\"{}\",{search}", model.display())
}

/// The search of a checkpoint's player but for its simulations.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlayerSearch {
    /// Gumbel's root over this many moves, else PUCT.
    pub gumbel: Option<usize>,
    /// The weight of the disc margin.
    pub score_utility: f32,
    /// The choice below the root.
    pub interior: InteriorSelection,
}

impl PlayerSearch {
    /// The search with `simulations`, as a `net:` player's spec ends.
    pub fn spec(&self, simulations: u32) -> String {
        let mut search = match self.gumbel {
            Some(k) => format!("sims={simulations},gumbel={k}"),
            None => format!("sims={simulations}"),
        };
        if self.score_utility > 0.0 {
            search += &format!(",score={}", self.score_utility);
        }
        if self.interior != InteriorSelection::Puct {
            search += &format!(",interior={}", self.interior);
        }
        search
    }
}

/// Whether `player` is a checkpoint with the search `search` (a [`PlayerSearch::spec`]).
pub fn searches_with(player: &str, search: &str) -> bool {
    player.strip_suffix(search).is_some_and(|head| head.ends_with(','))
}

/// Gating: self-play plays the best checkpoint rather than the newest, and a checkpoint becomes the best once a
/// sequential test says it is stronger than the best before it.
pub struct Gating {
    /// H1 of the test: the checkpoint is this many Elo stronger (H0: it is not stronger), at 5% errors each way.
    pub elo1: f64,
    /// A test still undecided after this many game pairs leaves the best as it is.
    pub max_pairs: u64,
    /// Checkpoints already tested by this process: a retest against the same best would only replay its stored
    /// games to the same decision, and a newer best makes them older than it.
    pub tested: std::collections::HashSet<PathBuf>,
}

impl Gating {
    /// Tests `models` (oldest first) newer than the best, each against the best of its moment (network + `search`
    /// on both sides), promoting those accepted; the first checkpoint is the first best. Each test's games and
    /// decision are in RUN/eval/gate/<model>/, so a restarted stage replays no game.
    fn promote(
        &mut self,
        run: &othello_run::RunDir,
        models: &[&PathBuf],
        search: &str,
        setup: &MatchSetup,
    ) -> Result<()> {
        let step = |model: &Path| othello_net::read_info(model).map(|i| i.step).map_err(anyhow::Error::from);
        for model in models {
            let Some(best) = othello_net::best_model(run) else {
                othello_net::set_best_model(run, model)?;
                eprintln!("gating: {} is the first best", model.display());
                continue;
            };
            if self.tested.contains(*model) || step(model)? <= step(&best)? {
                continue;
            }
            let stem = model.file_stem().map_or_else(String::new, |s| s.to_string_lossy().into_owned());
            let decision = sprt(SprtOptions {
                out: &run.gate(&stem),
                candidate: &checkpoint_spec(model, search),
                baseline: &checkpoint_spec(&best, search),
                test: Sprt::new(0.0, self.elo1, 0.05, 0.05)?,
                rules: setup.rules,
                seed: setup.seed,
                openings: setup.openings.clone(),
                max_pairs: self.max_pairs,
            })?;
            self.tested.insert(model.to_path_buf());
            if decision == Decision::H1 {
                othello_net::set_best_model(run, model)?;
                eprintln!("gating: {} is the new best", model.display());
            }
        }
        Ok(())
    }
}

/// The Elo of each newly rated checkpoint and its rate against the solver, at its step, in a TensorBoard event file
/// of RUN/logs/eval (a run of its own beside the trainer's, so that neither's steps look out of order to
/// TensorBoard).
struct EvalLog {
    dir: PathBuf,
    writer: Option<othello_train::log::EventWriter>,
    logged_step: Option<u64>,
    /// The checkpoints' search: a final player's search (another) is not the curve's.
    search: String,
}

impl EvalLog {
    fn writer(&mut self) -> Result<&mut othello_train::log::EventWriter> {
        if self.writer.is_none() {
            self.writer = Some(othello_train::log::EventWriter::create(&self.dir)?);
        }
        Ok(self.writer.as_mut().expect("created above"))
    }

    /// The Elo of the checkpoints rated since the last call.
    fn write(&mut self, fit: &Ratings) -> Result<()> {
        let (curves, _) = curves_from(fit);
        let on_curve = curves.iter().filter(|c| searches_with(&c.label, &self.search));
        let mut points: Vec<_> = on_curve.flat_map(|c| c.points.iter()).collect();
        points.sort_by_key(|p| p.step);
        let logged = self.logged_step;
        for p in points.into_iter().filter(|p| logged.is_none_or(|s| p.step > s)) {
            let values = [("elo", p.value as f32), ("elo_interval95", (p.high - p.value) as f32)];
            self.writer()?.scalars(&values, p.step)?;
            self.logged_step = Some(p.step);
        }
        Ok(())
    }
}

/// Puts the evaluation's players not yet asked to the fixed positions, with a line for each and each checkpoint's
/// rate in TensorBoard, and stores every player's record when one was asked; returns them, or None while the
/// ladder's games hold no position.
fn ask_the_new_players(
    against_solver: &mut super::oracle::RunOptimalMoves,
    log: &mut EvalLog,
    threads: usize,
) -> Result<Option<Vec<othello_eval::endgame_oracle::OptimalMovesRow>>> {
    let Some((records, asked)) = against_solver.update(threads)? else { return Ok(None) };
    for r in records.iter().filter(|r| asked.contains(&r.player)) {
        let (low, high) = r.report.optimal_interval();
        eprintln!(
            "{}: the solver's move in {:.1}% of {} positions (95%: {:.1}-{:.1})",
            r.player,
            100.0 * r.report.optimal_rate(),
            r.report.positions,
            100.0 * low,
            100.0 * high
        );
        // The curve's checkpoints only: the search is read off the spec before the checkpoint's sidecar is.
        if searches_with(&r.player, &log.search) {
            if let Some((_, _, info)) = othello_eval::ratings_plot::rated_checkpoint(&r.player) {
                log.writer()?.scalars(&[("optimal_moves", r.report.optimal_rate() as f32)], info.step)?;
            }
        }
    }
    if !asked.is_empty() {
        eprintln!("{}", against_solver.store()?);
    }
    Ok(Some(records))
}

/// Where a directory's games are: an arena directory, or a run directory's RUN/eval.
pub fn games_dir(dir: &Path) -> PathBuf {
    let run_eval = othello_run::RunDir::new(dir).eval();
    if !ArenaDir::new(dir).results().exists() && ArenaDir::new(&run_eval).results().exists() {
        run_eval
    } else {
        dir.to_path_buf()
    }
}

/// Where a measure of the games of `dirs` goes: `out` if given, else the games' directory for one, else
/// `comparison` (a directory of its own for several).
pub fn output_dir(out: Option<PathBuf>, dirs: &[PathBuf], comparison: &str) -> PathBuf {
    match (out, dirs) {
        (Some(out), _) => out,
        (None, [dir]) => games_dir(dir),
        (None, _) => PathBuf::from(comparison),
    }
}

/// The stored games of `dirs` (arena directories or runs), a game stored by two of them (the same key: players,
/// opening and colours, as the fixed ladder's round robin is) once.
pub fn rows_of(dirs: &[PathBuf]) -> Result<Vec<ResultRow>> {
    let mut rows = Vec::new();
    let mut keys = std::collections::HashSet::new();
    for dir in dirs {
        anyhow::ensure!(dir.is_dir(), "{}: no such directory", dir.display());
        let games = ArenaDir::new(games_dir(dir));
        rows.extend(games.read()?.into_iter().filter(|r| keys.insert(r.key.clone())));
    }
    Ok(rows)
}

/// Fits, prints and stores (in `out`) the ratings of the games in `dirs` (arena directories or runs), together:
/// runs evaluated on the same fixed ladder are rated on one scale. The anchor (a player and its Elo) as given,
/// else [`default_anchor`] at 0. A game stored by two runs counts once ([`rows_of`]).
pub fn ratings(dirs: &[PathBuf], out: &Path, anchor: Option<(&str, f64)>, los_matrix: bool) -> Result<Ratings> {
    let rows = rows_of(dirs)?;
    let arena = ArenaDir::new(out);
    let games: Vec<_> = rows.iter().map(|r| r.as_game_result()).collect();
    let names = || dirs.iter().map(|d| d.display().to_string()).collect::<Vec<_>>().join(", ");
    let (anchor, anchor_elo) = match anchor {
        Some(given) => given,
        None => (default_anchor(&rows).with_context(|| format!("{}: no games stored yet", names()))?, 0.0),
    };
    let fit = fit(&games, anchor, anchor_elo).with_context(|| format!("rating the games of {}", names()))?;
    print_table(&fit);
    if los_matrix {
        print_los(&fit);
    }
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    arena.write_ratings(&RatingsTable::new(&fit, anchor, anchor_elo, rows.len()))?;
    let (curves, fixed) = curves_from(&fit);
    if !curves.is_empty() {
        let svg = arena.ratings_svg();
        plot_curves(&curves, &fixed, "Elo", &svg).map_err(|e| anyhow::anyhow!("{}: {e}", svg.display()))?;
        eprintln!("Elo of the checkpoints drawn in {}", svg.display());
    }
    Ok(fit)
}

fn print_table(fit: &Ratings) {
    let width = fit.ratings.iter().map(|r| r.player.len()).max().unwrap_or(6).max(6);
    println!(
        "{:>4}  {:<width$}  {:>7}  {:>6}  {:>6}  {:>6}  {:>7}",
        "rank", "player", "Elo", "+-95%", "games", "score", "LOS next"
    );
    for (i, r) in fit.ratings.iter().enumerate() {
        let los = fit.ratings.get(i + 1).and_then(|n| fit.likelihood_of_superiority(&r.player, &n.player));
        println!(
            "{:>4}  {:<width$}  {:>+7.1}  {:>6.1}  {:>6}  {:>5.1}%  {:>7}",
            i + 1,
            r.player,
            r.elo,
            r.interval95(),
            r.games,
            100.0 * r.score / r.games.max(1) as f64,
            los.map_or(String::new(), |l| format!("{:.1}%", 100.0 * l))
        );
    }
}

fn print_los(fit: &Ratings) {
    println!("likelihood of superiority (row over column):");
    for a in &fit.ratings {
        let cells: Vec<String> = fit
            .ratings
            .iter()
            .map(|b| match fit.likelihood_of_superiority(&a.player, &b.player) {
                Some(_) if a.player == b.player => "    -".to_string(),
                Some(l) => format!("{:>5.1}", 100.0 * l),
                None => String::new(),
            })
            .collect();
        println!("{:<24} {}", a.player, cells.join(" "));
    }
}

/// What `sprt` tests.
pub struct SprtOptions<'a> {
    pub out: &'a Path,
    pub candidate: &'a str,
    pub baseline: &'a str,
    pub test: othello_eval::sprt::Sprt,
    pub rules: Rules,
    pub seed: u64,
    pub openings: OpeningSource,
    /// Stop undecided after this many pairs.
    pub max_pairs: u64,
}

/// `sprt`: game pairs between a candidate and a baseline until the log-likelihood ratio crosses a bound. Games are
/// stored as the arena stores them, so a rerun continues the test; the decision goes to `OUT/sprt.json`.
pub fn sprt(o: SprtOptions) -> Result<Decision> {
    use othello_eval::sprt::pair_category;
    anyhow::ensure!(o.candidate != o.baseline, "the candidate and the baseline are the same agent");
    for spec in [o.candidate, o.baseline] {
        othello_eval::check_spec(spec, &o.rules)?;
    }
    let dir = ArenaDir::new(o.out);
    dir.repair()?;
    let stored: std::collections::HashMap<String, f64> = dir
        .read()?
        .into_iter()
        .map(|r| (r.key.clone(), if r.black == o.candidate { r.black_score } else { 1.0 - r.black_score }))
        .collect();
    let (lower, upper) = o.test.bounds();
    let mut pentanomial = [0u64; 5];
    let mut decision = Decision::Continue;
    let mut pair = 0;
    while pair < o.max_pairs && decision == Decision::Continue {
        let mut scores = [0.0; 2];
        for (i, p) in Pairing::both_colours(o.candidate, o.baseline, pair).into_iter().enumerate() {
            let candidate_black = i == 0;
            scores[i] = match stored.get(&p.key) {
                Some(&s) => s,
                None => {
                    let played = play(&o.rules, &p, &o.openings.for_pair(&o.rules, o.seed, pair), o.seed)?;
                    dir.store(&played)?;
                    if candidate_black {
                        played.black_score
                    } else {
                        1.0 - played.black_score
                    }
                }
            };
        }
        pentanomial[pair_category(scores[0], scores[1])] += 1;
        pair += 1;
        decision = o.test.decide(&pentanomial);
        if pair % 10 == 0 || decision != Decision::Continue {
            eprintln!(
                "pairs {pair}  pentanomial {pentanomial:?}  LLR {:+.3} in ({lower:+.3}, {upper:+.3})",
                o.test.llr(&pentanomial)
            );
        }
    }
    let verdict = match decision {
        Decision::H1 => {
            format!("H1 accepted: {} is {} Elo stronger rather than {}", o.candidate, o.test.elo1, o.test.elo0)
        }
        Decision::H0 => format!("H0 accepted: {} is not {} Elo stronger", o.candidate, o.test.elo1),
        Decision::Continue => format!("undecided after {pair} pairs"),
    };
    println!("{verdict}");
    let json = serde_json::json!({
        "candidate": o.candidate,
        "baseline": o.baseline,
        "elo0": o.test.elo0,
        "elo1": o.test.elo1,
        "alpha": o.test.alpha,
        "beta": o.test.beta,
        "pairs": pair,
        "pentanomial": pentanomial,
        "llr": o.test.llr(&pentanomial),
        "bounds": [lower, upper],
        "decision": match decision { Decision::H0 => "H0", Decision::H1 => "H1", Decision::Continue => "undecided" },
    });
    let path = o.out.join("sprt.json");
    othello_run::write_atomic(&path, format!("{json:#}\n").as_bytes())
        .with_context(|| format!("writing {}", path.display()))?;
    Ok(decision)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_lines_name_a_checkpoint_by_its_run_and_file() {
        let (a, b) = ("net:model=runs/a/models/model-000000250.json,sims=8", "net:model=\"b/m.json\",sims=8");
        let labels = progress_labels(&[a, "pattern:depth=4", b]);
        assert_eq!(labels, ["a/model-000000250", "pattern:depth=4", "m"]);
        // Searches that differ stay in the labels.
        let labels = progress_labels(&[a, "net:model=\"b/m.json\",sims=9", "policy:model=\"m,1.json\""]);
        assert_eq!(
            labels,
            ["net:model=\"a/model-000000250\",sims=8", "net:model=\"m\",sims=9", "policy:model=\"m,1\""]
        );
    }

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
}
