//! `othello-zero train`: runs the trainer of a run directory with a progress line.

use std::path::Path;

use anyhow::Result;
use othello_run::RunDir;
use othello_train::trainer::fingerprint;
use othello_train::{Event, TrainOptions, Trainer};

use crate::progress::ProgressDisplay;
use crate::run_config::RunConfig;

/// Train the network of RUN on the replay window of RUN/replay; checkpoints go to RUN/models (resumes from the
/// newest one).
#[derive(clap::Args)]
pub struct TrainArgs {
    /// The run directory.
    #[arg(long)]
    run: std::path::PathBuf,
    /// Stop at this step (default: the config's max_steps; 0: no limit).
    #[arg(long)]
    steps: Option<u64>,
    /// Stop after this many minutes, with a checkpoint of the last step (0: no limit, as for `run`).
    #[arg(long, value_parser = crate::flags::minutes)]
    minutes: Option<f64>,
    /// Stop when there is nothing left to train on (the throttle or no data) instead of waiting.
    #[arg(long)]
    exit_when_starved: bool,
    /// Config file of a new run (default: the embedded one); a run keeps its RUN/config.toml, and a different one is
    /// refused.
    #[arg(long)]
    config: Option<std::path::PathBuf>,
}

pub fn train(a: TrainArgs) -> Result<()> {
    train_run(&RunDir::new(a.run), a.config.as_deref(), a.steps, a.minutes, a.exit_when_starved)
}

fn train_run(
    run: &RunDir,
    config: Option<&Path>,
    steps: Option<u64>,
    minutes: Option<f64>,
    exit_when_starved: bool,
) -> Result<()> {
    let (mut config, text) = RunConfig::text_for_run(run, config)?;
    let _trainer = othello_run::RoleLock::acquire(run, "trainer")?;
    // `--steps` replaces the config's limit, 0 included (no limit).
    if let Some(steps) = steps {
        config.train.max_steps = steps;
    }
    let device = config.train.device.device()?;
    let opts = TrainOptions {
        run: run.clone(),
        rules: config.rules()?,
        network: config.network.clone(),
        config: config.train.clone(),
        seed: config.seed,
        config_hash: fingerprint(&text),
        device,
        exit_when_starved,
        // 0 minutes is no limit, as for `run` and the config; a deadline beyond what an `Instant` holds is none.
        deadline: minutes.filter(|m| *m > 0.0).and_then(|m| {
            std::time::Instant::now().checked_add(std::time::Duration::try_from_secs_f64(60.0 * m).ok()?)
        }),
    };
    let mut trainer = Trainer::open(opts)?;
    let limit = (config.train.max_steps > 0).then_some(config.train.max_steps);
    let mut display = ProgressDisplay::new(limit, "steps");
    let mut step = trainer.step;
    display.set(step, None, "");
    let stop = trainer.train(limit, &mut |event| match event {
        Event::Resumed { step, from } => display.say(&format!("resuming at step {step} from {}", from.display())),
        Event::Rejected(e) => display.say(&format!("skipped: {e}")),
        Event::Waiting { arrived, needed } => {
            display.set(step, None, &format!("waiting for self-play: {arrived}/{needed} positions"));
        }
        Event::Logged(line) => {
            step = line.step;
            let f = &line.figures;
            display.set(step, None, &format!(
                "loss {:.3} (policy {:.3} value {:.3})  entropy {:.2}  value acc {:.0}%  lr {:.1e}  window {}  {:.0} samples/s",
                f.loss,
                f.policy_loss,
                f.value_loss,
                f.policy_entropy,
                100.0 * f.value_accuracy,
                line.learning_rate,
                line.window,
                line.samples_per_second
            ));
        }
        Event::Checkpoint(path) => display.say(&format!("checkpoint {}", path.display())),
    })?;
    display.finish();
    eprintln!("stopped at step {} ({} samples): {stop}", trainer.step, trainer.samples);
    Ok(())
}
