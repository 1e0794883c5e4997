//! `othello-zero pipeline`: the whole loop on one machine, as two processes of this binary sharing the run
//! directory: a self-play worker and the trainer. They talk only through RUN (shards in, models out), exactly as
//! they would on separate machines; this command only starts them, shows their progress, and stops self-play
//! when the trainer is done. Each child's output goes to RUN/logs/{selfplay,train}.log.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use othello_net::{newest_model, read_info};
use othello_run::RunDir;

use crate::run_config::RunConfig;

pub fn run(run: &RunDir, steps: u64, threads: usize, config: Option<&Path>) -> Result<()> {
    // Fix the run's config first, so both children read the same file.
    RunConfig::for_run(run, config)?;
    let logs = run.logs();
    std::fs::create_dir_all(&logs).with_context(|| format!("creating {}", logs.display()))?;
    let exe = std::env::current_exe().context("finding this executable")?;
    let spawn = |args: &[&str], rayon_threads: usize, stage: &str| -> Result<Child> {
        let path = run.stage_log(stage);
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .with_context(|| format!("opening {}", path.display()))?;
        Command::new(&exe)
            .args(args)
            .env("RAYON_NUM_THREADS", rayon_threads.to_string())
            .stdout(file.try_clone()?)
            .stderr(file)
            .stdin(Stdio::null())
            .spawn()
            .with_context(|| format!("starting {}", args[0]))
    };
    let run_arg = run.root().to_str().context("the run directory's name is not UTF-8")?;
    let (threads_arg, steps_arg) = (threads.to_string(), steps.to_string());
    let mut selfplay = spawn(
        &["selfplay", "--run", run_arg, "--games", "1000000000", "--threads", &threads_arg],
        threads,
        "selfplay",
    )?;
    let mut trainer = match spawn(&["train", "--run", run_arg, "--steps", &steps_arg], 1, "train") {
        Ok(child) => child,
        Err(e) => {
            let _ = selfplay.kill();
            return Err(e);
        }
    };
    let bar = ProgressBar::new(steps).with_style(
        ProgressStyle::with_template("{bar:30} step {pos}/{len}  {msg}  ETA {eta}").expect("a valid template"),
    );
    let started = Instant::now();
    let outcome = loop {
        std::thread::sleep(Duration::from_secs(2));
        if let Some(status) = trainer.try_wait()? {
            break if status.success() { Ok(()) } else { Err(format!("the trainer stopped: {status}")) };
        }
        if let Some(status) = selfplay.try_wait()? {
            let _ = trainer.kill();
            break Err(format!("self-play stopped: {status}"));
        }
        let shards = std::fs::read_dir(run.replay())
            .map(|d| d.filter_map(|e| e.ok()).filter(|e| e.file_name().to_string_lossy().ends_with(".npz")).count())
            .unwrap_or(0);
        let mut msg = format!("{shards} shards  {:.0} min", started.elapsed().as_secs_f64() / 60.0);
        if let Some(info) = newest_model(&run.models()).and_then(|m| read_info(&m).ok()) {
            bar.set_position(info.step);
            if let Some(t) = info.training {
                let loss = |k: &str| t.losses.get(k).copied().unwrap_or(f32::NAN);
                msg = format!(
                    "{msg}  positions {}  policy loss {:.3}  value loss {:.3}",
                    t.positions_seen,
                    loss("policy_loss"),
                    loss("value_loss")
                );
            }
        }
        bar.set_message(msg);
    };
    let _ = selfplay.kill();
    let _ = selfplay.wait();
    bar.finish();
    if let Err(why) = outcome {
        bail!("{why}; see {} and {}", run.stage_log("train").display(), run.stage_log("selfplay").display());
    }
    eprintln!(
        "trained to step {steps} in {:.1} min; models in {}, logs in {} (tensorboard --logdir {})",
        started.elapsed().as_secs_f64() / 60.0,
        run.models().display(),
        logs.display(),
        logs.display()
    );
    Ok(())
}
