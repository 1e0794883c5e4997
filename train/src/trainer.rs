//! The trainer: waits for self-play data, samples the replay window, steps the optimiser, logs, and writes
//! checkpoints that self-play picks up. Everything it needs to continue is in `RUN/models` (weights, optimiser
//! state, sidecar), so a trainer killed at any moment resumes from its newest checkpoint.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use burn::module::Module;
use burn::optim::decay::WeightDecayConfig;
use burn::optim::momentum::MomentumConfig;
use burn::optim::{AdamWConfig, GradientsParams, ModuleOptimizer, SgdConfig};
use burn::tensor::Device;
use othello_core::playout::game_rng;
use othello_core::Rules;
use othello_net::checkpoint::checkpoint_stem;
use othello_net::{
    load_checkpoint, newest_checkpoint, read_info, save_checkpoint, CheckpointError, CheckpointInfo, NetConfig,
    Network, TrainingInfo,
};
use othello_run::{temp_path, RunDir, ShardError};
use thiserror::Error;

use crate::batch::{Batch, SquareMaps};
use crate::log::{LogError, LogLine, RunLog};
use crate::loss::{loss, StepFigures, Targets};
use crate::train_config::{Optimizer, TrainConfig};
use crate::window::ReplayWindow;

#[derive(Debug, Error)]
pub enum TrainError {
    #[error(transparent)]
    Model(#[from] CheckpointError),
    #[error("optimiser state {}: {problem}", path.display())]
    Optimizer { path: PathBuf, problem: String },
    #[error(transparent)]
    Log(#[from] LogError),
    #[error("train config: {0}")]
    Config(String),
}

/// What a trainer is asked to do.
#[derive(Clone, Debug)]
pub struct TrainOptions {
    pub run: RunDir,
    pub rules: Rules,
    pub network: NetConfig,
    pub config: TrainConfig,
    /// The run's seed: the initial weights (the same random initialisation self-play uses before the first
    /// checkpoint) and every step's sample draw.
    pub seed: u64,
    /// The whole run config's text, hashed into every sidecar.
    pub config_hash: String,
    /// Where to train (an autodiff device is made from it).
    pub device: Device,
    /// Return when the throttle or a lack of data stops training, instead of waiting for self-play.
    pub exit_when_starved: bool,
    /// Return at this time with a checkpoint of the last step (a run's time budget), if given.
    pub deadline: Option<Instant>,
}

impl TrainOptions {
    /// The network's architecture at the checkpoint of `step`: the run's, with the blocks a growing network has
    /// gained by then.
    fn architecture_at(&self, step: u64) -> NetConfig {
        self.network.deepened(self.config.blocks_added_by(step))
    }
}

/// What the trainer reports while it runs.
pub enum Event<'a> {
    Resumed {
        step: u64,
        from: &'a Path,
    },
    Rejected(&'a ShardError),
    /// Training waits: it needs `needed` positions to have arrived, `arrived` have.
    Waiting {
        arrived: u64,
        needed: u64,
    },
    Logged(&'a LogLine),
    Checkpoint(&'a Path),
}

/// Why `run` returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// `max_steps` reached.
    Steps,
    /// No data to train on and `exit_when_starved`.
    Starved,
    /// The deadline passed.
    Deadline,
}

impl std::fmt::Display for Stop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Stop::Steps => "its step limit reached",
            Stop::Starved => "no replay to train on",
            Stop::Deadline => "its time limit reached",
        })
    }
}

pub struct Trainer {
    opts: TrainOptions,
    device: Device,
    net: Network,
    optim: ModuleOptimizer,
    /// Steps done and samples trained on.
    pub step: u64,
    pub samples: u64,
    window: ReplayWindow,
    log: RunLog,
    maps: SquareMaps,
    /// The checkpoint this trainer continues, if any.
    pub resumed_from: Option<PathBuf>,
    /// The run's seconds before this trainer began (its checkpoint's) and when it began: a checkpoint's
    /// `run_seconds`.
    run_clock: (u64, std::time::Instant),
}

impl Trainer {
    /// Opens the run: the newest checkpoint with its optimiser state if there is one, else the run's random
    /// initialisation.
    pub fn open(opts: TrainOptions) -> Result<Trainer, TrainError> {
        opts.config.validate().map_err(TrainError::Config)?;
        let device = opts.device.clone().autodiff();
        let models = opts.run.models();
        let mut optim = new_optimizer(&opts.config);
        let (net, step, samples, run_seconds, resumed) = match newest_checkpoint(&models) {
            Some(path) => {
                let (net, info) = load_checkpoint(&path, Some(&opts.architecture_at(read_info(&path)?.step)), &device)?;
                let state = info.training.as_ref().and_then(|t| t.optimizer_state.as_ref()).map(|f| models.join(f));
                if let Some(state) = state.filter(|p| p.exists()) {
                    optim = optim
                        .load(&state)
                        .map_err(|e| TrainError::Optimizer { path: state.clone(), problem: format!("{e:?}") })?;
                }
                let started_at = opts.run.started_at();
                let run_seconds = info.training.as_ref().and_then(|t| t.seconds_into_run(started_at)).unwrap_or(0);
                (net, info.step, info.samples, run_seconds, Some(path))
            }
            None => (opts.network.init_seeded(&device, opts.seed), 0, 0, 0, None),
        };
        let log = RunLog::open(&opts.run, step)?;
        Ok(Trainer {
            window: ReplayWindow::new(&opts.run.replay()),
            device,
            net,
            optim,
            step,
            samples,
            log,
            maps: SquareMaps::default(),
            resumed_from: resumed,
            run_clock: (run_seconds, std::time::Instant::now()),
            opts,
        })
    }

    /// The network being trained.
    pub fn network(&self) -> &Network {
        &self.net
    }

    /// The device the trainer computes on (autodiff).
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// Trains until `max_steps` (config or `limit`), or until starved when `exit_when_starved`.
    pub fn train(&mut self, limit: Option<u64>, on_event: &mut dyn FnMut(Event)) -> Result<Stop, TrainError> {
        let config = self.opts.config.clone();
        let max_steps = limit.or((config.max_steps > 0).then_some(config.max_steps));
        match self.resumed_from.clone() {
            Some(from) => on_event(Event::Resumed { step: self.step, from: &from }),
            // A fresh run's first checkpoint is its initialisation, which self-play plays until the next: the
            // evaluation rates it too, so that a run's ratings begin where its learning does.
            None if self.step == 0 => self.checkpoint(None, on_event)?,
            None => {}
        }
        let poll = Duration::from_secs_f64(config.poll_seconds.max(0.01));
        let mut last_look: Option<Instant> = None;
        let mut interval = Interval::default();
        loop {
            if max_steps.is_some_and(|m| self.step >= m) {
                self.checkpoint(Some(&interval.latest()), on_event)?;
                return Ok(Stop::Steps);
            }
            if self.opts.deadline.is_some_and(|d| Instant::now() >= d) {
                self.checkpoint(Some(&interval.latest()), on_event)?;
                return Ok(Stop::Deadline);
            }
            if last_look.is_none_or(|t| t.elapsed() >= poll) || !self.may_train() {
                for e in self.refresh().rejected {
                    on_event(Event::Rejected(&e));
                }
                last_look = Some(Instant::now());
            }
            if !self.may_train() {
                if self.opts.exit_when_starved {
                    self.checkpoint(Some(&interval.latest()), on_event)?;
                    return Ok(Stop::Starved);
                }
                on_event(Event::Waiting { arrived: self.window.arrived(), needed: self.positions_needed() });
                std::thread::sleep(poll);
                continue;
            }
            let started = Instant::now();
            let (batch, window) = self.next_batch();
            let figures = self.train_on(&batch);
            interval.add(&figures, batch.n, started.elapsed());
            if self.step.is_multiple_of(config.log_every) {
                let line = LogLine {
                    step: self.step,
                    samples: self.samples,
                    learning_rate: config.learning_rate_at(self.step - 1),
                    window,
                    positions: self.window.arrived(),
                    samples_per_second: interval.samples as f64 / interval.busy.as_secs_f64().max(1e-9),
                    figures: interval.mean(),
                };
                self.log.write(&line)?;
                on_event(Event::Logged(&line));
                interval = Interval { last: line.figures, ..Default::default() };
            }
            if self.step.is_multiple_of(config.checkpoint_every) {
                self.checkpoint(Some(&interval.latest()), on_event)?;
            }
        }
    }

    /// The batch of the current step (drawn with the step's own seed, so a resumed run draws the same) and the
    /// window size it was drawn from.
    pub fn next_batch(&mut self) -> (Batch, u64) {
        let window = self.opts.config.window_size(self.window.arrived());
        self.window.evict(window);
        let mut rng = game_rng(self.opts.seed, self.step);
        (Batch::draw(self.opts.config.batch_size, &self.maps, &mut rng, &self.window, window), window)
    }

    /// Reads the shards that arrived since the last look.
    pub fn refresh(&mut self) -> crate::window::Arrivals {
        self.window.refresh()
    }

    /// One optimisation step on `batch` (at the learning rate of the current step); returns its figures.
    pub fn train_on(&mut self, batch: &Batch) -> StepFigures {
        self.step_on(Targets::new(batch, &self.device))
    }

    /// [`Trainer::train_on`] for a batch already on the device.
    pub fn step_on(&mut self, targets: Targets) -> StepFigures {
        let [n, _] = targets.policy.dims();
        let lr = self.opts.config.learning_rate_at(self.step);
        let (total, figures) = loss(&self.net, targets, &self.opts.config);
        let grads = GradientsParams::from_grads(total.backward(), &self.net);
        self.net = self.optim.step(lr, self.net.clone(), grads);
        self.step += 1;
        self.samples += n as u64;
        if self.opts.config.grow_blocks_at.contains(&self.step) {
            let seed = self.opts.seed ^ self.step.rotate_left(32);
            self.net = self.net.clone().deepened(1, &self.device, seed);
        }
        figures
    }

    /// The throttle and the minimum: may one more batch be drawn?
    fn may_train(&self) -> bool {
        self.window.arrived() >= self.positions_needed()
    }

    /// Positions that must have arrived before the next step.
    fn positions_needed(&self) -> u64 {
        let c = &self.opts.config;
        let by_throttle = ((self.samples + c.batch_size as u64) as f64 / c.samples_per_position).ceil() as u64;
        by_throttle.max(c.min_positions)
    }

    /// Writes the checkpoint of the current step (unless it exists): optimiser state, weights, then the sidecar
    /// that makes the model visible, with the losses of the steps since the last log line (none before the first
    /// step). Then drops optimiser states beyond the configured number.
    fn checkpoint(&mut self, figures: Option<&StepFigures>, on_event: &mut dyn FnMut(Event)) -> Result<(), TrainError> {
        let models = self.opts.run.models();
        let stem = checkpoint_stem(self.step);
        if models.join(format!("{stem}.json")).exists() {
            return Ok(());
        }
        let state_name = format!("optimizer-{:09}.bpk", self.step);
        let state = models.join(&state_name);
        let tmp = temp_path(&state);
        let fail = |problem: String| TrainError::Optimizer { path: state.clone(), problem };
        std::fs::create_dir_all(&models).map_err(|e| fail(format!("creating {}: {e}", models.display())))?;
        self.optim.save(&tmp).map_err(|e| fail(format!("{e:?}")))?;
        std::fs::rename(&tmp, &state).map_err(|e| fail(e.to_string()))?;
        let window = self.opts.config.window_size(self.window.arrived());
        let info = CheckpointInfo {
            architecture: self.opts.architecture_at(self.step),
            step: self.step,
            samples: self.samples,
            training: Some(TrainingInfo {
                rules: self.opts.rules.to_string(),
                positions_seen: self.window.arrived(),
                window,
                losses: figures.iter().flat_map(|f| f.named()).map(|(k, v)| (k.to_string(), v)).collect(),
                config_hash: self.opts.config_hash.clone(),
                optimizer_state: Some(state_name),
                written_at: std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_secs()),
                run_seconds: Some(self.run_clock.0 + self.run_clock.1.elapsed().as_secs()),
            }),
            averaged_from: Vec::new(),
            player: None,
        };
        let sidecar = save_checkpoint(&models, &self.net.valid(), &info)?;
        self.prune_optimizer_states(&models);
        let curves = self.opts.run.curves();
        crate::plot::plot_curves(&self.opts.run.scalars(), &curves)
            .map_err(|problem| LogError { path: curves.clone(), problem })?;
        on_event(Event::Checkpoint(&sidecar));
        Ok(())
    }

    /// Keeps the newest `keep_optimizer_states` optimiser states; a missing one only means a fresh optimiser.
    fn prune_optimizer_states(&self, models: &Path) {
        let Ok(entries) = std::fs::read_dir(models) else { return };
        let mut states: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("optimizer-")))
            .collect();
        states.sort();
        let excess = states.len().saturating_sub(self.opts.config.keep_optimizer_states.max(1));
        for old in &states[..excess] {
            let _ = std::fs::remove_file(old);
        }
    }
}

/// Figures accumulated between two log lines.
#[derive(Default)]
struct Interval {
    sum: StepFigures,
    steps: u32,
    samples: u64,
    busy: Duration,
    /// The previous line's means.
    last: StepFigures,
}

impl Interval {
    fn add(&mut self, figures: &StepFigures, samples: usize, busy: Duration) {
        self.sum.add(figures, 1.0);
        self.steps += 1;
        self.samples += samples as u64;
        self.busy += busy;
    }
    /// The figures a checkpoint records: the steps since the last line if any, else the last line's.
    fn latest(&self) -> StepFigures {
        if self.steps > 0 {
            self.mean()
        } else {
            self.last
        }
    }
    fn mean(&self) -> StepFigures {
        let mut m = StepFigures::default();
        m.add(&self.sum, 1.0 / self.steps.max(1) as f32);
        m
    }
}

fn new_optimizer(c: &TrainConfig) -> ModuleOptimizer {
    match c.optimizer {
        Optimizer::Sgd => SgdConfig::new()
            .with_momentum(Some(MomentumConfig::new().with_momentum(c.momentum).with_dampening(0.0)))
            .with_weight_decay(Some(WeightDecayConfig::new(c.weight_decay)))
            .init(),
        Optimizer::Adamw => AdamWConfig::new().with_weight_decay(c.weight_decay).init(),
    }
}

/// [`othello_run::fnv1a`] of `text`, in hex: the config hash a sidecar records.
pub fn fingerprint(text: &str) -> String {
    format!("{:016x}", othello_run::fnv1a(text))
}

#[cfg(test)]
mod tests {
    use super::*;
    use burn::tensor::Tensor;
    use othello_run::{Provenance, Shard};
    use othello_search::RolloutEvaluator;
    use othello_selfplay::{play_game, SelfPlayConfig};

    /// A run directory in a scratch directory (removed when the first is dropped) holding `games` games.
    fn run_with_games(games: u64) -> (tempfile::TempDir, RunDir) {
        let scratch = tempfile::tempdir().unwrap();
        let run = RunDir::new(scratch.path());
        let config = SelfPlayConfig { sims: 8, ..Default::default() };
        let mut shard = Shard::default();
        for g in 0..games {
            let record = play_game(Rules::othello(), &mut RolloutEvaluator::new(g, 1), &config, g);
            shard.push_game(&record, Provenance { model: 0, game: g, worker: 0 });
        }
        shard.write_atomic(&run.replay(), "s.npz").unwrap();
        (scratch, run)
    }

    fn options(run: &RunDir) -> TrainOptions {
        TrainOptions {
            run: run.clone(),
            rules: Rules::othello(),
            network: NetConfig::new(1, 8),
            config: TrainConfig {
                batch_size: 16,
                min_positions: 1,
                samples_per_position: 1000.0,
                checkpoint_every: 10,
                log_every: 5,
                warmup_steps: 5,
                ..Default::default()
            },
            seed: 7,
            config_hash: fingerprint("test"),
            device: Device::flex(),
            exit_when_starved: true,
            deadline: None,
        }
    }

    /// A trainer opened with `opts` and run to `steps`.
    fn trained(opts: TrainOptions, steps: u64) -> Trainer {
        let mut trainer = Trainer::open(opts).unwrap();
        trainer.train(Some(steps), &mut |_| {}).unwrap();
        trainer
    }

    /// The outputs of a network on fixed inputs: equal outputs, equal weights (for this purpose).
    fn outputs(net: &Network) -> Vec<f32> {
        let device = Device::flex();
        let input = Tensor::<4>::from_data(
            burn::tensor::TensorData::new((0..2 * 6 * 64).map(|i| (i % 3) as f32).collect::<Vec<f32>>(), [2, 6, 8, 8]),
            &device,
        );
        net.valid().forward(input).policy.into_data().try_into_vec::<f32>().unwrap()
    }

    /// Removes a run's checkpoints and logs, keeping its replay.
    fn start_over(run: &RunDir) {
        std::fs::remove_dir_all(run.models()).unwrap();
        std::fs::remove_dir_all(run.logs()).unwrap();
    }

    fn largest_difference(a: &[f32], b: &[f32]) -> f32 {
        a.iter().zip(b).map(|(a, b)| (a - b).abs()).fold(0f32, f32::max)
    }

    /// A trainer stopped at a checkpoint and reopened continues exactly where an uninterrupted one goes: the
    /// step counter, the optimiser's moments (AdamW's state makes a fresh optimiser take different steps) and
    /// the weights all carry over.
    #[test]
    fn a_reopened_trainer_continues_like_an_uninterrupted_one() {
        resumes_exactly(Optimizer::Adamw);
    }

    #[test]
    fn a_reopened_sgd_trainer_continues_like_an_uninterrupted_one() {
        resumes_exactly(Optimizer::Sgd);
    }

    fn resumes_exactly(optimizer: Optimizer) {
        let (_scratch, run) = run_with_games(4);
        let options = |run: &RunDir| {
            let mut o = options(run);
            o.config.optimizer = optimizer;
            o.config.learning_rate = if optimizer == Optimizer::Sgd { 0.05 } else { 1e-3 };
            o
        };
        let expected = outputs(trained(options(&run), 30).network());
        start_over(&run);

        trained(options(&run), 20);
        // The run's clock continues from the checkpoint's, whatever the wall clock did between the two trainers:
        // as if the run had stopped for a day after 5,000 seconds.
        let sidecar = run.models().join("model-000000020.json");
        let mut info = othello_net::read_info(&sidecar).unwrap();
        let training = info.training.as_mut().unwrap();
        assert!(training.run_seconds.is_some_and(|s| s < 600), "{:?}", training.run_seconds);
        training.run_seconds = Some(5000);
        training.written_at -= 86_400;
        std::fs::write(&sidecar, serde_json::to_string(&info).unwrap()).unwrap();
        let mut second = Trainer::open(options(&run)).unwrap();
        assert_eq!((second.step, second.samples), (20, 320));
        assert!(second.resumed_from.as_ref().unwrap().ends_with("model-000000020.json"));
        second.train(Some(30), &mut |_| {}).unwrap();
        let clock = othello_net::read_info(&run.models().join("model-000000030.json")).unwrap().training.unwrap();
        assert!(clock.run_seconds.is_some_and(|s| (5000..5600).contains(&s)), "{:?}", clock.run_seconds);
        let resumed = outputs(second.network());
        let diff = largest_difference(&expected, &resumed);
        assert!(diff < 1e-4, "resumed run differs by {diff}");

        // Without its optimiser state (momentum, moments) the same resume goes elsewhere: the check above can fail.
        std::fs::remove_dir_all(run.models()).unwrap();
        trained(options(&run), 20);
        for e in std::fs::read_dir(run.models()).unwrap() {
            let p = e.unwrap().path();
            if p.to_string_lossy().contains("optimizer-") {
                std::fs::remove_file(p).unwrap();
            }
        }
        let fresh = outputs(trained(options(&run), 30).network());
        let diff = largest_difference(&expected, &fresh);
        assert!(diff > 1e-3, "a fresh optimiser should differ, got {diff}");

        // The log holds each step once, in order.
        let rows = crate::log::read_scalars(&run.scalars()).unwrap();
        let steps: Vec<f64> = rows.iter().map(|r| r[0]).collect();
        assert_eq!(steps, vec![5.0, 10.0, 15.0, 20.0, 25.0, 30.0]);
    }

    /// A growing network gains its blocks after the steps named, its checkpoints record the architecture they
    /// have, the new blocks train (the run then differs from one that does not grow), and a trainer reopened
    /// between two growths continues like an uninterrupted one.
    #[test]
    fn a_growing_network_gains_its_blocks_on_schedule_and_resumes_exactly() {
        let (_scratch, run) = run_with_games(4);
        let growing = |run: &RunDir| {
            let mut o = options(run);
            o.config.grow_blocks_at = vec![15, 25];
            o
        };
        let without_growth = outputs(trained(options(&run), 30).network());
        start_over(&run);

        let expected = outputs(trained(growing(&run), 30).network());
        let blocks = |step: u64| {
            let sidecar = run.models().join(format!("{}.json", checkpoint_stem(step)));
            othello_net::read_info(&sidecar).unwrap().architecture.blocks
        };
        assert_eq!((blocks(10), blocks(20), blocks(30)), (1, 2, 3));
        let diff = largest_difference(&expected, &without_growth);
        assert!(diff > 1e-3, "the added blocks should train, the outputs differ by {diff}");
        start_over(&run);

        trained(growing(&run), 20);
        let mut second = Trainer::open(growing(&run)).unwrap();
        assert_eq!(second.step, 20);
        second.train(Some(30), &mut |_| {}).unwrap();
        let resumed = outputs(second.network());
        let diff = largest_difference(&expected, &resumed);
        assert!(diff < 1e-4, "resumed run differs by {diff}");
        // Without the schedule, the grown checkpoint is of another architecture than the run's.
        let err = Trainer::open(options(&run)).err().unwrap().to_string();
        assert!(err.contains("model-000000030.bpk") && err.contains("3x8") && err.contains("1x8"), "{err}");
    }

    #[test]
    fn the_throttle_stops_training_when_self_play_is_slow() {
        let (_scratch, run) = run_with_games(1);
        let mut opts = options(&run);
        opts.config.samples_per_position = 2.0;
        let positions = Shard::read(&run.replay().join("s.npz")).unwrap().len() as u64;
        let mut trainer = Trainer::open(opts).unwrap();
        assert_eq!(trainer.train(None, &mut |_| {}).unwrap(), Stop::Starved);
        assert_eq!(trainer.samples, 2 * positions / 16 * 16);
        // The checkpoint written on stopping records the losses of the steps since the last log line.
        let newest = newest_checkpoint(&run.models()).unwrap();
        let losses = othello_net::read_info(&newest).unwrap().training.unwrap().losses;
        assert!(losses["policy_loss"] > 0.1 && losses["value_loss"] > 0.0, "{losses:?}");
    }

    /// At its deadline the trainer stops between steps and checkpoints the last one, which need not be a multiple
    /// of `checkpoint_every`: a run's time limit keeps its final steps.
    #[test]
    fn the_deadline_stops_training_with_a_checkpoint_of_the_last_step() {
        let (_scratch, run) = run_with_games(4);
        let mut opts = options(&run);
        opts.config.checkpoint_every = 1000;
        opts.deadline = Some(Instant::now() + Duration::from_millis(300));
        let mut trainer = Trainer::open(opts).unwrap();
        assert_eq!(trainer.train(None, &mut |_| {}).unwrap(), Stop::Deadline);
        assert!(trainer.step > 0);
        let newest = newest_checkpoint(&run.models()).unwrap();
        assert_eq!(othello_net::read_info(&newest).unwrap().step, trainer.step);
    }

    #[test]
    fn a_checkpoint_of_another_architecture_is_refused_by_name() {
        let (_scratch, run) = run_with_games(1);
        trained(options(&run), 10);
        let mut opts = options(&run);
        opts.network = NetConfig::new(2, 8);
        let err = Trainer::open(opts).err().unwrap().to_string();
        assert!(err.contains("model-000000010.bpk") && err.contains("1x8") && err.contains("2x8"), "{err}");
    }
}
