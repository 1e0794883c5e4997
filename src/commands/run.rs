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
use othello_net::{newest_checkpoint, read_info};
use othello_run::RunDir;

use super::run_status::{final_player_clause, learning_summary, EvalSearches, Status};
use crate::progress::ProgressDisplay;
use crate::run_config::RunConfig;

/// The main job: train a player from scratch (or continue one) and rate it as it learns.
///
/// Self-play, the trainer and the evaluation stage run as three processes sharing RUN; a status line shows games,
/// positions/s, step, losses and the newest checkpoint's Elo. Stops when the trainer reaches its steps or the time is
/// up, then rates the last checkpoint (and the final player, with `[eval] final_player_sims`):
/// RUN/eval/ratings.svg draws Elo against step and wall time. Ctrl-C or `kill -9`, and a rerun resumes every stage.
/// With no config: the embedded quickstart (6x6: 11 minutes of training, about 13 in all on 2 cores).
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

/// Set in the stages' environment to the pid of the `run` that started them: they exit when it is gone.
const STAGE_OF_RUN: &str = "OTHELLO_ZERO_STAGE_OF_RUN";

/// In a stage started by `run`: a thread that ends the process once its parent is gone (a `kill -9` of `run`
/// reparents the children), so that a rerun never finds a second trainer still writing to the run. The parent is
/// the pid `run` gave, not the one found at start: `run` may be gone before the stage looks.
pub fn exit_with_parent() {
    #[cfg(unix)]
    if let Some(value) = std::env::var_os(STAGE_OF_RUN) {
        let parent = value.to_str().and_then(|pid| pid.parse::<u32>().ok());
        std::thread::spawn(move || loop {
            if parent != Some(std::os::unix::process::parent_id()) {
                eprintln!("the run that started this stage is gone: stopping");
                std::process::exit(1);
            }
            std::thread::sleep(Duration::from_millis(500));
        });
    }
}

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
    // Fix the run's config first, so every child reads the same file (a refused config leaves nothing behind).
    let config = RunConfig::for_run(run, o.config)?;
    // One `run` a directory: a second would play every game again beside the first.
    let _run = othello_run::RoleLock::acquire(run, "run")?;
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
            .env(STAGE_OF_RUN, std::process::id().to_string())
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

    // Counts games; the time left is the run's own (its minutes, or its steps at the trainer's pace).
    let mut display = ProgressDisplay::new(None, "games");
    let started = Instant::now();
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
        let left = match (by_time, by_steps) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        display.set_time_left(left.map(|m| Duration::from_secs_f64(m.max(0.0) * 60.0)));
        let training = format!("{}  {games_rate:.1} games/s  {positions_rate:.0} positions/s", status.training_line());
        // A terminal shows the evaluation on a line of its own; a log gets one line.
        let evaluation = status.evaluation_line();
        let separator = if display.is_hidden() { "  " } else { "\n  " };
        display.set(status.games, None, &format!("{training}{separator}{evaluation}"));
        if minutes > 0.0 && elapsed >= minutes {
            break Ok(());
        }
    };
    display.clear();
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

/// Minutes of run time the run's newest checkpoint records (0 before the first).
fn minutes_run(run: &RunDir) -> f64 {
    newest_checkpoint(&run.models())
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
    if newest_checkpoint(&run.models()).is_none() {
        eprintln!("no checkpoint yet: nothing to rate (run again to continue)");
        return Ok(());
    }
    // A stage too: it stops when this process is killed, as the others do.
    let rating = std::process::Command::new(exe)
        .args(["evaluate", "--run", run_arg, "--threads", &threads.to_string()])
        .env(STAGE_OF_RUN, std::process::id().to_string())
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
    let source = othello_net::resolve_checkpoint(source)?;
    if newest_checkpoint(&run.models()).is_some() {
        anyhow::ensure!(
            run.warm_start().exists(),
            "{} already has checkpoints of its own: a warm start only begins a fresh run",
            run.root().display()
        );
        return Ok(());
    }
    let device = othello_net::DeviceChoice::Flex.device()?;
    // The run's architecture: another one is refused here, naming the file.
    let (net, _) = othello_net::load_checkpoint(&source, Some(&config.network), &device)?;
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
    let info = othello_net::CheckpointInfo {
        training: Some(training),
        ..othello_net::CheckpointInfo::untrained(config.network.clone(), 0)
    };
    othello_net::save_checkpoint(&run.models(), &net, &info)?;
    eprintln!("warm start: {} is step 0 of {}", source.display(), run.root().display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::run_status::checkpoint;

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
}
