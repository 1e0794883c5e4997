//! `othello-zero run`: the main job. Self-play, the trainer and the evaluation stage as three processes of this
//! binary sharing the run directory, exactly as they would run on separate machines: they talk only through RUN
//! (shards, checkpoints, evaluation games). This command starts them, shows one status view (a dashboard line on a
//! terminal, a plain line every 30 s otherwise), stops them when the trainer is done or the time is up, rates the
//! last checkpoint (and the final player, where the config asks for one) and prints the ratings and a line of what
//! the run learnt. Each child's output goes to RUN/logs/{selfplay,train,eval}.log; a rerun resumes every stage.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use othello_net::{newest_model, read_info};
use othello_run::RunDir;

use othello_eval::stage::searches_with;
use othello_eval::AgentSpec;
use othello_search::PlayerSearch;

use crate::run_config::RunConfig;

/// The main job: train a player from scratch (or continue one) and rate it as it learns. Self-play, the trainer and
/// the evaluation stage run as three processes sharing RUN; a status line shows games, positions/s, step, losses
/// and the newest checkpoint's Elo. Stops when the trainer reaches its steps or the time is up, then rates the last
/// checkpoint (and the final player, with `[eval] final_player_simulations`): RUN/eval/ratings.svg draws Elo
/// against step and wall time. Ctrl-C or `kill -9`, and a rerun resumes every stage. With no config: the embedded
/// quickstart (6x6: 11 minutes of training, about 13 in all on 2 cores).
#[derive(clap::Args)]
pub struct RunArgs {
    /// The run directory (created if new).
    #[arg(long, default_value = "runs/quickstart")]
    run: std::path::PathBuf,
    /// Config file of a new run (default: the embedded quickstart); a run keeps its RUN/config.toml, and a different
    /// one is refused.
    #[arg(long)]
    config: Option<std::path::PathBuf>,
    /// Stop at this trainer step (default: the config's max_steps; 0: no limit).
    #[arg(long)]
    steps: Option<u64>,
    /// Stop after this many minutes of this stretch (default: what the run's checkpoints leave of the config's
    /// minutes; 0: no limit).
    #[arg(long, value_parser = crate::flags::minutes)]
    minutes: Option<f64>,
    /// Cores in all (default: this machine's); the evaluation takes the config's [eval] threads of them.
    #[arg(long, value_parser = crate::flags::thread_count)]
    threads: Option<usize>,
    /// Begin a fresh run from this checkpoint's weights (a network pre-trained on WTHOR, say: `import-wthor` and
    /// `train` in a run of its own) instead of a random initialisation. The run is labelled a warm start wherever it
    /// is rated.
    #[arg(long)]
    warm_start: Option<std::path::PathBuf>,
}

pub fn run(a: RunArgs) -> Result<()> {
    let threads = a.threads.unwrap_or_else(crate::flags::available_threads);
    let (run_dir, config, warm_start) = (RunDir::new(a.run), a.config.as_deref(), a.warm_start.as_deref());
    run_stages(RunOptions { run: &run_dir, config, steps: a.steps, minutes: a.minutes, threads, warm_start })
}

/// Set in the stages' environment: they exit when the `run` that started them is gone.
const STAGE_OF_RUN: &str = "OTHELLO_ZERO_STAGE_OF_RUN";

/// In a stage started by `run`: a thread that ends the process once its parent is gone (a `kill -9` of `run`
/// reparents the children), so that a rerun never finds a second trainer still writing to the run.
pub fn exit_with_parent() {
    #[cfg(unix)]
    if std::env::var_os(STAGE_OF_RUN).is_some() {
        let parent = std::os::unix::process::parent_id();
        std::thread::spawn(move || loop {
            std::thread::sleep(Duration::from_millis(500));
            if std::os::unix::process::parent_id() != parent {
                eprintln!("the run that started this stage is gone: stopping");
                std::process::exit(1);
            }
        });
    }
}

/// Between two plain status lines when the output is not a terminal.
const PLAIN_EVERY: Duration = Duration::from_secs(30);
/// How long a run at its time limit waits for the trainer's last checkpoint (a step and a checkpoint take seconds).
const TRAINER_LAST_CHECKPOINT: Duration = Duration::from_secs(120);

/// What `run` was asked for.
pub struct RunOptions<'a> {
    pub run: &'a RunDir,
    pub config: Option<&'a Path>,
    /// Stop at this trainer step (default: the config's `max_steps`; 0: no limit).
    pub steps: Option<u64>,
    /// Stop after this many minutes of this stretch (default: what is left of the config's `minutes`; 0 means no
    /// limit).
    pub minutes: Option<f64>,
    /// Cores to use in all (default: this machine's), 1 or more.
    pub threads: usize,
    /// A checkpoint whose weights begin a fresh run.
    pub warm_start: Option<&'a Path>,
}

/// The children, killed when dropped (an error or Ctrl-C in this process leaves no stage running).
struct Stages(Vec<(&'static str, Child)>);

impl Stages {
    fn stop(&mut self) {
        for (_, child) in &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for Stages {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Set by Ctrl-C (SIGINT) or a scheduler's SIGTERM: `run` then stops its stages itself, so that none of them is
/// reported as failed, and says how to go on.
struct Interrupted {
    flag: Arc<AtomicBool>,
    since: Instant,
    run: std::path::PathBuf,
}

impl Interrupted {
    fn register(run: &RunDir) -> Result<Interrupted> {
        let flag = Arc::new(AtomicBool::new(false));
        #[cfg(unix)]
        for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
            signal_hook::flag::register(signal, Arc::clone(&flag)).context("watching for Ctrl-C")?;
        }
        Ok(Interrupted { flag, since: Instant::now(), run: run.root().to_path_buf() })
    }

    /// Once interrupted: kills `stages` (each resumes from its files) and exits with 130, as a shell does.
    fn stop_if_set(&self, stages: &mut Stages) {
        if self.flag.load(Ordering::Relaxed) {
            stages.stop();
            eprintln!(
                "\ninterrupted after {:.1} min; every stage resumes where it stopped when this command runs again \
                 (`othello-zero run --run {}`)",
                self.since.elapsed().as_secs_f64() / 60.0,
                self.run.display()
            );
            std::process::exit(130);
        }
    }

    /// Waits for `stages`' child `index` for at most `limit`: its exit status, or None at the limit. The flag is
    /// looked at before the child each time: Ctrl-C on a terminal stops the child too, and that is no failure of it.
    fn wait(&self, stages: &mut Stages, index: usize, limit: Duration) -> Result<Option<std::process::ExitStatus>> {
        let waited = Instant::now();
        loop {
            self.stop_if_set(stages);
            if let Some(status) = stages.0[index].1.try_wait()? {
                return Ok(Some(status));
            }
            if waited.elapsed() >= limit {
                return Ok(None);
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}

fn run_stages(o: RunOptions) -> Result<()> {
    let run = o.run;
    // Fix the run's config first, so every child reads the same file.
    let config = RunConfig::for_run(run, o.config)?;
    if let Some(source) = o.warm_start {
        warm_start(run, &config, source)?;
    }
    let logs = run.logs();
    std::fs::create_dir_all(&logs).with_context(|| format!("creating {}", logs.display()))?;
    let exe = std::env::current_exe().context("finding this executable")?;
    // Before any stage is prepared: a run that has had its minutes only rates.
    let interrupted = Interrupted::register(run)?;
    let ran = minutes_run(run);
    let Some(minutes) = stretch_minutes(o.minutes, config.minutes, ran) else {
        eprintln!(
            "{} has run {ran:.1} minutes, the config's {}: nothing left to train (`--minutes M` trains it M minutes \
             more); rating the newest checkpoint{}",
            run.root().display(),
            config.minutes,
            final_player_clause(&config)
        );
        return rate_newest(run, &config, &exe, o.threads, &interrupted);
    };
    // A stage with a niceness above 0 starts through `nice` where the system has it (every Unix does); asked only
    // when the evaluation wants it.
    let nice_found = config.eval.nice > 0 && Command::new("nice").arg("true").status().is_ok_and(|s| s.success());
    let spawn = |args: &[&str], rayon_threads: usize, stage: &str, niceness: u8| -> Result<Child> {
        let path = run.stage_log(stage);
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .with_context(|| format!("opening {}", path.display()))?;
        let mut command = if niceness > 0 && nice_found {
            let mut nice = Command::new("nice");
            nice.arg(format!("-n{niceness}")).arg(&exe);
            nice
        } else {
            Command::new(&exe)
        };
        command
            .args(args)
            .env("RAYON_NUM_THREADS", rayon_threads.to_string())
            .env(STAGE_OF_RUN, "1")
            .stdout(file.try_clone()?)
            .stderr(file)
            .stdin(Stdio::null())
            .spawn()
            .with_context(|| format!("starting {}", args[0]))
    };
    let run_arg = run.root().to_str().context("the run directory's name is not UTF-8")?;
    let eval_threads = config.eval.threads;
    // Self-play takes every core: the trainer keeps to its throttle and the evaluation yields by its niceness.
    let selfplay_threads = o.threads;
    let eval_nice = if nice_found { config.eval.nice } else { 0 };
    let steps = o.steps.unwrap_or(config.train.max_steps);
    let (selfplay_arg, eval_arg) = (selfplay_threads.to_string(), eval_threads.to_string());
    let (steps_arg, minutes_arg) = (steps.to_string(), minutes.to_string());
    let mut train_args = vec!["train", "--run", run_arg, "--steps", &steps_arg];
    // The trainer stops itself at the time limit, with a checkpoint of its last step: the run's final player.
    if minutes > 0.0 {
        train_args.extend(["--minutes", &minutes_arg]);
    }
    let time_limit = if o.minutes.is_none() && ran > 0.0 {
        format!("{minutes:.1} minutes, the rest of the config's {}", config.minutes)
    } else {
        format!("{minutes} minutes")
    };
    let mut stages = Stages(vec![]);
    let selfplay = ["selfplay", "--run", run_arg, "--games", "0", "--threads", &selfplay_arg];
    stages.0.push(("self-play", spawn(&selfplay, selfplay_threads, STAGE_LOGS[0], 0)?));
    stages.0.push(("the trainer", spawn(&train_args, 1, STAGE_LOGS[1], 0)?));
    let evaluate = ["evaluate", "--run", run_arg, "--watch", "--threads", &eval_arg];
    stages.0.push(("evaluation", spawn(&evaluate, 1, STAGE_LOGS[2], eval_nice)?));
    eprintln!(
        "run {}: self-play on {selfplay_threads} thread{}, the trainer, evaluation on {eval_threads} at nice {eval_nice}; \
         {}; logs in {}",
        run.root().display(),
        super::plural(selfplay_threads),
        match (steps, minutes) {
            (0, m) if m <= 0.0 => "until stopped".to_string(),
            (0, _) => format!("for {time_limit}"),
            (s, m) if m <= 0.0 => format!("until step {s}"),
            (s, _) => format!("until step {s} or {time_limit}"),
        },
        logs.display()
    );

    let bar =
        ProgressBar::new_spinner().with_style(ProgressStyle::with_template("{spinner} {msg}").expect("a template"));
    let started = Instant::now();
    let mut last_plain = Instant::now();
    // The first reading of games, positions and step: the rates are taken from there.
    let mut first: Option<(Status, Instant)> = None;
    let outcome = loop {
        std::thread::sleep(Duration::from_secs(2));
        interrupted.stop_if_set(&mut stages);
        let mut failed = None;
        for (i, (name, child)) in stages.0.iter_mut().enumerate() {
            if let Some(status) = child.try_wait()? {
                // The trainer finishing its steps is the normal end; anything else stopping is a failure, told with
                // the stage's own error.
                failed = Some(if i == 1 && status.success() {
                    Ok(())
                } else {
                    let log = run.stage_log(STAGE_LOGS[i]);
                    let error = last_error(&log).map_or(String::new(), |e| format!(": {e}"));
                    Err(format!("{name} stopped ({status}){error} ({})", log.display()))
                });
            }
        }
        if let Some(result) = failed {
            break result;
        }
        let status = Status::read(run, &config);
        let (base, at) = first.get_or_insert_with(|| (status.clone(), Instant::now()));
        let seconds = at.elapsed().as_secs_f64().max(1.0);
        let per_second = |now: u64, then: u64| now.saturating_sub(then) as f64 / seconds;
        let (games_rate, positions_rate, step_rate) = (
            per_second(status.games, base.games),
            per_second(status.positions, base.positions),
            per_second(status.step, base.step),
        );
        let elapsed = started.elapsed().as_secs_f64() / 60.0;
        // Whichever limit comes first: the time, or the steps at the trainer's pace so far.
        let by_time = (minutes > 0.0).then_some(minutes - elapsed);
        let by_steps =
            (steps > 0 && step_rate > 0.0).then(|| steps.saturating_sub(status.step) as f64 / step_rate / 60.0);
        let eta = match (by_time, by_steps) {
            (Some(a), Some(b)) => format!("  ETA {:.1} min", a.min(b)),
            (Some(a), None) | (None, Some(a)) => format!("  ETA {a:.1} min"),
            (None, None) => String::new(),
        };
        let training = format!(
            "{}  {games_rate:.1} games/s  {positions_rate:.0} positions/s  {elapsed:.1} min{eta}",
            status.training_line()
        );
        // A terminal shows the evaluation on a line of its own; a log gets one line.
        if bar.is_hidden() {
            if last_plain.elapsed() >= PLAIN_EVERY {
                eprintln!("{training}  {}", status.evaluation_line());
                last_plain = Instant::now();
            }
        } else {
            bar.set_message(format!("{training}\n  {}", status.evaluation_line()));
            bar.tick();
        }
        if minutes > 0.0 && elapsed >= minutes {
            break Ok(());
        }
    };
    bar.finish_and_clear();
    // At the time limit the trainer writes its last checkpoint and exits (by its own clock, a moment from this one);
    // then self-play and the evaluation of older checkpoints stop (a kill loses no finished file), and the newest
    // checkpoint is rated here.
    if outcome.is_ok() {
        interrupted.wait(&mut stages, 1, TRAINER_LAST_CHECKPOINT)?;
    }
    drop(stages);
    if let Err(why) = outcome {
        bail!(
            "{why}; see the logs in {} ({}, {}, {})",
            logs.display(),
            run.stage_log("selfplay").display(),
            run.stage_log("train").display(),
            run.stage_log("eval").display()
        );
    }
    eprintln!(
        "stopped after {:.1} min; rating the newest checkpoint{}",
        started.elapsed().as_secs_f64() / 60.0,
        final_player_clause(&config)
    );
    rate_newest(run, &config, &exe, o.threads, &interrupted)
}

/// The logs of the stages, in the order they are started (`RunDir::stage_log`).
const STAGE_LOGS: [&str; 3] = ["selfplay", "train", "eval"];

/// The last error a stage's log holds (the `Error: ...` line its exit printed), if any.
fn last_error(log: &Path) -> Option<String> {
    let text = std::fs::read(log).ok()?;
    let tail = String::from_utf8_lossy(&text[text.len().saturating_sub(1 << 16)..]).into_owned();
    tail.lines().rev().find_map(|line| line.strip_prefix("Error: ")).map(|e| e.trim().to_string())
}

/// ", then the final player (its N-simulation search)" where the config has one, else nothing.
fn final_player_clause(config: &RunConfig) -> String {
    EvalSearches::of(config).final_player.as_ref().map_or(String::new(), |search| {
        format!(", then the final player (its {}-simulation search)", search.simulations)
    })
}

/// Minutes of run time the run's newest checkpoint records (0 before the first).
fn minutes_run(run: &RunDir) -> f64 {
    newest_model(&run.models())
        .and_then(|m| read_info(&m).ok())
        .and_then(|info| info.training?.seconds_into_run(run.started_at()))
        .map_or(0.0, |seconds| seconds as f64 / 60.0)
}

/// This stretch's time limit in minutes (0: none): `--minutes` as asked, else what is left of the config's
/// `minutes` after the `ran` minutes the run has had, so that a rerun after a stop ends the run where the config
/// says; None where nothing is left.
fn stretch_minutes(asked: Option<f64>, config_minutes: f64, ran: f64) -> Option<f64> {
    match asked {
        Some(m) => Some(m),
        None if config_minutes <= 0.0 => Some(0.0),
        // Under a second is nothing: the trainer would stop before its first step.
        None => Some(config_minutes - ran).filter(|left| left * 60.0 >= 1.0),
    }
}

/// Rates the newest checkpoint (and the final player) in a stage of its own, then prints the ratings table and
/// what the run learnt.
fn rate_newest(run: &RunDir, config: &RunConfig, exe: &Path, threads: usize, interrupted: &Interrupted) -> Result<()> {
    let run_arg = run.root().to_str().context("the run directory's name is not UTF-8")?;
    let logs = run.logs();
    if newest_model(&run.models()).is_none() {
        eprintln!("no checkpoint yet: nothing to rate (run again to continue)");
        return Ok(());
    }
    // A stage too: it stops when this process is killed, as the others do.
    let rating = std::process::Command::new(exe)
        .args(["evaluate", "--run", run_arg, "--threads", &threads.to_string()])
        .env(STAGE_OF_RUN, "1")
        .env(crate::run_config::WARNINGS_SHOWN, "1")
        .spawn()
        .context("starting the final evaluation")?;
    let mut rating = Stages(vec![("the final evaluation", rating)]);
    // Without a limit the wait ends with the child's status.
    if let Some(status) = interrupted.wait(&mut rating, 0, Duration::MAX)?.filter(|s| !s.success()) {
        bail!("the final evaluation failed: {status}");
    }
    let eval = othello_eval::arena::ArenaDir::new(run.eval());
    if let Some(summary) = learning_summary(&eval, &EvalSearches::of(config)) {
        eprintln!("learnt: {summary}");
    }
    eprintln!(
        "models in {}, evaluation games and ratings.svg{} in {}, logs in {} (tensorboard --logdir {})",
        run.models().display(),
        if config.eval.optimal_moves_empties > 0 { " (Elo), optimal-moves.svg (moves against the solver)" } else { "" },
        run.eval().display(),
        logs.display(),
        logs.display()
    );
    Ok(())
}

/// Begins a fresh run from `source`'s weights: named first in RUN/warm-start.txt (which labels the run wherever
/// it is rated), then copied in as the step-0 checkpoint, which self-play and the trainer take up as any other. A
/// run that already holds its warm start's checkpoints goes on; one with checkpoints of its own is refused.
fn warm_start(run: &RunDir, config: &RunConfig, source: &Path) -> Result<()> {
    let source = othello_net::resolve_model(source)?;
    if newest_model(&run.models()).is_some() {
        anyhow::ensure!(
            run.warm_start().exists(),
            "{} already has checkpoints of its own: a warm start only begins a fresh run",
            run.root().display()
        );
        return Ok(());
    }
    let device = othello_net::DeviceChoice::Flex.device()?;
    // The run's architecture: another one is refused here, naming the file.
    let (net, _) = othello_net::load_model(&source, Some(&config.network), &device)?;
    let path = run.warm_start();
    othello_run::write_atomic(&path, format!("{}\n", source.display()).as_bytes())
        .with_context(|| format!("writing {}", path.display()))?;
    let training = othello_net::TrainingInfo {
        rules: config.rules.clone(),
        positions_seen: 0,
        window: 0,
        losses: Default::default(),
        // As the trainer's sidecars: the hash of the run's config text.
        config_hash: othello_train::trainer::fingerprint(&std::fs::read_to_string(run.config()).unwrap_or_default()),
        optimizer_state: None,
        written_at: std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs()),
        run_seconds: Some(0),
    };
    let info = othello_net::ModelInfo {
        training: Some(training),
        ..othello_net::ModelInfo::untrained(config.network.clone(), 0)
    };
    othello_net::save_model(&run.models(), &net, &info)?;
    eprintln!("warm start: {} is step 0 of {}", source.display(), run.root().display());
    Ok(())
}

/// What the status view shows, read from the run directory.
#[derive(Clone, Default)]
struct Status {
    /// Self-play games stored (whole shards).
    games: u64,
    step: u64,
    positions: u64,
    /// The replay window the trainer draws from (0 before its first log line).
    window: u64,
    /// The policy and value losses of the newest logged steps (none before the first step).
    losses: Option<(f32, f32)>,
    /// The newest rated checkpoint: its step, Elo and 95% interval.
    elo: Option<(u64, f64, f64)>,
    /// The newest checkpoint put to the solver's positions: its step and the share of them it played perfectly.
    optimal_moves: Option<(u64, f64)>,
    /// Self-play's simulations a full search, shown while they grow with the checkpoint's step.
    simulations: Option<u32>,
}

impl Status {
    fn read(run: &RunDir, config: &RunConfig) -> Status {
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
        } else if let Some(info) = newest_model(&run.models()).and_then(|m| read_info(&m).ok()) {
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
        if config.selfplay.final_simulations.is_some() {
            let model = othello_net::selfplay_model(run, config.eval.gating);
            let step = model.and_then(|m| read_info(&m).ok()).map_or(0, |info| info.step);
            status.simulations = Some(config.selfplay.simulations_at(step));
        }
        status
    }

    /// Self-play's and the trainer's progress.
    fn training_line(&self) -> String {
        let simulations = self.simulations.map_or(String::new(), |n| format!("  simulations {n}"));
        let losses = self.losses.map_or("losses: not trained yet".to_string(), |(policy, value)| {
            format!("policy loss {policy:.3}  value loss {value:.3}")
        });
        format!(
            "games {}{simulations}  step {}  positions {}  window {}  {losses}",
            self.games, self.step, self.positions, self.window
        )
    }

    /// The evaluation's newest measures.
    fn evaluation_line(&self) -> String {
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
struct EvalSearches {
    curve: PlayerSearch,
    final_player: Option<PlayerSearch>,
}

impl EvalSearches {
    fn of(config: &RunConfig) -> EvalSearches {
        let curve = config.player_search();
        let final_player = (config.eval.final_player_simulations)
            .filter(|&n| n != curve.simulations)
            .map(|simulations| PlayerSearch { simulations, ..curve.clone() });
        EvalSearches { curve, final_player }
    }
}

/// The checkpoints among `measures` (player, measure) played with `search`, oldest first: each one's step and
/// measure.
fn checkpoints_by_step<'a, T>(measures: impl Iterator<Item = (&'a str, T)>, search: &PlayerSearch) -> Vec<(u64, T)> {
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
    checkpoints_by_step(table.ratings.iter().map(|r| (r.player.as_str(), (r.elo, r.interval95))), search)
}

/// The checkpoints with `search` in an evaluation's `optimal-moves.csv`, oldest first: each one's step and
/// optimal-move rate.
fn checkpoints_against_solver(eval: &othello_eval::arena::ArenaDir, search: &PlayerSearch) -> Vec<(u64, f64)> {
    let Ok(records) = eval.read_optimal_moves() else { return vec![] };
    checkpoints_by_step(records.iter().map(|r| (r.player.as_str(), r.report.optimal_rate())), search)
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
fn learning_summary(eval: &othello_eval::arena::ArenaDir, searches: &EvalSearches) -> Option<String> {
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
    let simulations = search.simulations;
    let players = table.ratings.iter().filter(|r| searches_with(&r.player, search));
    let stepped = players.filter_map(|r| Some((othello_eval::ratings_plot::rated_checkpoint(&r.player)?.2.step, r)));
    let Some((step, player)) = stepped.max_by_key(|(step, _)| *step) else { return Some(summary) };
    summary += &format!(
        "; the final player (step {step} with {simulations} simulations): Elo {}",
        show_elo(&(player.elo, player.interval95))
    );
    if let Ok(rows) = eval.read() {
        // Its score against the same network with the curve's search (its spec with that search in place of its
        // own), and against the ladder's strongest rung.
        // Players compared as specs, not as the text a table happens to hold.
        let Ok(final_player) = player.player.parse::<AgentSpec>() else { return Some(summary) };
        let is = |text: &str, spec: &AgentSpec| text.parse::<AgentSpec>().is_ok_and(|s| s == *spec);
        let same_network = final_player.model().map(|model| {
            let name = format!("step {step} with {} simulations", searches.curve.simulations);
            (AgentSpec::net(model, searches.curve.clone()), name)
        });
        let top_rung = top.and_then(|r| Some((r.player.parse::<AgentSpec>().ok()?, r.player.clone())));
        for (opponent, name) in [same_network, top_rung].into_iter().flatten() {
            let (points, games) = rows.iter().fold((0.0, 0), |(points, games), r| {
                let (black, white) = (is(&r.black, &final_player), is(&r.white, &final_player));
                match (black && is(&r.white, &opponent), white && is(&r.black, &opponent)) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    /// A stage's failure is told with its own error, causes included, as its `main` wrote it to the log.
    #[test]
    fn a_stage_log_gives_back_its_last_error() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("train.log");
        let disk = std::io::Error::from_raw_os_error(28);
        let error = anyhow::Error::new(disk).context("writing runs/a/models/model-000000100.bpk");
        // What `main` prints on its way out.
        let text = format!("step 90 loss 1.2\nError: old\nstep 100\nError: {error:#}\n");
        std::fs::write(&log, text).unwrap();
        let told = last_error(&log).unwrap();
        assert!(told.starts_with("writing runs/a/models/model-000000100.bpk: No space left on device"), "{told}");
        std::fs::write(&log, "Error: the trainer's config: bad key\n").unwrap();
        assert_eq!(last_error(&log).as_deref(), Some("the trainer's config: bad key"));
        std::fs::write(&log, "no error here\n").unwrap();
        assert_eq!(last_error(&log), None);
        assert_eq!(last_error(&dir.path().join("missing.log")), None);
    }

    /// Writes the sidecar of a checkpoint of `step`: all that `Status` reads of a checkpoint.
    fn checkpoint(run: &RunDir, step: u64) -> PathBuf {
        let info = othello_net::ModelInfo::untrained(Default::default(), step);
        let path = run.models().join(format!("model-{step:09}.json"));
        std::fs::create_dir_all(run.models()).unwrap();
        std::fs::write(&path, serde_json::to_string(&info).unwrap()).unwrap();
        path
    }

    /// A record of `optimal` positions played perfectly of 40.
    fn record(player: String, optimal: usize) -> othello_eval::optimal_moves::OptimalMovesRow {
        othello_eval::optimal_moves::OptimalMovesRow {
            player,
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
        let mut config = RunConfig::parse("[selfplay]\nsimulations = 32\n", "s.toml").unwrap();
        assert_eq!(Status::read(&run, &config).simulations, None);
        (config.selfplay.final_simulations, config.selfplay.simulations_ramp_steps) = (Some(128), 1000);
        assert_eq!(Status::read(&run, &config).simulations, Some(32), "the random init is step 0");
        let older = checkpoint(&run, 250);
        checkpoint(&run, 500);
        let status = Status::read(&run, &config);
        // 32 + 96 * 500 / 1000.
        assert_eq!(status.simulations, Some(80));
        assert!(status.training_line().contains("simulations 80"), "{}", status.training_line());
        config.eval.gating = true;
        othello_net::set_best_model(&run, &older).unwrap();
        assert_eq!(Status::read(&run, &config).simulations, Some(56));
        (config.eval.gating, config.selfplay.final_simulations) = (false, None);
        let status = Status::read(&run, &config);
        assert!(!status.training_line().contains("simulations"), "{}", status.training_line());
    }

    /// The config's `minutes` are the run's in all: a rerun trains for what its newest checkpoint leaves of them,
    /// and not at all once they are spent; `--minutes` sets the stretch whatever the run has had; 0 is no limit.
    #[test]
    fn a_rerun_trains_for_what_is_left_of_the_configs_minutes() {
        let scratch = tempfile::tempdir().unwrap();
        let run = RunDir::new(scratch.path());
        assert_eq!(minutes_run(&run), 0.0);
        assert_eq!(stretch_minutes(None, 240.0, minutes_run(&run)), Some(240.0));
        let ran_for = |step: u64, seconds: u64| {
            let path = checkpoint(&run, step);
            let mut info = read_info(&path).unwrap();
            info.training = Some(othello_net::TrainingInfo { run_seconds: Some(seconds), ..Default::default() });
            std::fs::write(&path, serde_json::to_string(&info).unwrap()).unwrap();
            minutes_run(&run)
        };
        let ran = ran_for(22893, 6900);
        assert_eq!(ran, 115.0);
        assert_eq!(stretch_minutes(None, 240.0, ran), Some(125.0));
        assert_eq!(stretch_minutes(Some(30.0), 240.0, ran), Some(30.0));
        assert_eq!(stretch_minutes(None, 0.0, ran), Some(0.0));
        assert_eq!(stretch_minutes(None, 115.0, ran), None);
        assert_eq!(stretch_minutes(None, 100.0, ran), None);
        // A second left is a stretch; less is none.
        assert_eq!(stretch_minutes(None, 240.0, ran_for(23000, 14399)).map(|m| (m * 60.0).round()), Some(1.0));
        assert_eq!(stretch_minutes(None, 240.0, 14399.5 / 60.0), None);
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
            let mut info: othello_net::ModelInfo =
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
        let config = RunConfig::parse("[eval]\nsimulations = 8\nfinal_player_simulations = 80\n", "s.toml").unwrap();
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
        let search = |simulations| PlayerSearch::new(simulations, None, othello_search::MctsConfig::default());
        let searches = EvalSearches { curve: search(8), final_player: Some(search(64)) };
        assert_eq!(learning_summary(&eval, &searches), None);
        let spec = |step, sims| format!("net:model={},sims={sims}", checkpoint(&run, step).display());
        let rated = |player: String, elo: f64, interval95: f64| RatedPlayer {
            player,
            elo,
            interval95,
            std_error: interval95 / 1.96,
            games: 20,
            score: 10.0,
        };
        let mut table = RatingsTable {
            anchor: "random".into(),
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
