//! The evaluation's TensorBoard run, `RUN/logs/eval` beside the trainer's: each checkpoint's Elo with its interval,
//! and its rate of optimal moves, at its step.

use std::path::PathBuf;

use othello_run::tensorboard::{EventWriter, TensorboardError};

use crate::events::Event;

pub(crate) struct StageLog {
    dir: PathBuf,
    /// Made with the first value, so that an evaluation that rates nothing leaves no empty file.
    writer: Option<EventWriter>,
    /// The first failure: nothing more is written after it (the ratings themselves are stored apart).
    failure: Option<TensorboardError>,
}

impl StageLog {
    pub fn new(dir: PathBuf) -> StageLog {
        StageLog { dir, writer: None, failure: None }
    }

    /// Writes what `event` measures at a step; on the first failure, the warning to give.
    pub fn record(&mut self, event: &Event) -> Option<String> {
        let (values, step) = match *event {
            Event::CheckpointElo { step, elo, interval95 } => {
                (vec![("elo", elo as f32), ("elo_interval95", interval95 as f32)], step)
            }
            Event::OptimalMoves { report, step: Some(step), .. } => {
                (vec![("optimal_moves", report.optimal_rate() as f32)], step)
            }
            _ => return None,
        };
        if self.failure.is_some() {
            return None;
        }
        let written = match &mut self.writer {
            Some(writer) => writer.scalars(&values, step),
            None => EventWriter::create(&self.dir).and_then(|writer| self.writer.insert(writer).scalars(&values, step)),
        };
        let failure = written.err()?;
        let warning = format!("warning: {failure}");
        self.failure = Some(failure);
        Some(warning)
    }

    /// The first failure, once the work is done.
    pub fn finish(self) -> Result<(), TensorboardError> {
        self.failure.map_or(Ok(()), Err)
    }
}
