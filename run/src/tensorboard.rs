//! TensorBoard event files (`events.out.tfevents.*`) of scalars, as the trainer (`RUN/logs`) and the evaluation
//! (`RUN/logs/eval`) write them: one file per process, as TensorBoard expects.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use protobuf::Message;
use tensorboard_proto::event::Event;
use tensorboard_rs::record_writer::RecordWriter;
use thiserror::Error;

#[derive(Debug, Error)]
#[error("TensorBoard log {}: {problem}", path.display())]
pub struct TensorboardError {
    pub path: PathBuf,
    pub problem: String,
}

/// A TensorBoard event file (`events.out.tfevents.*`) of scalars, written with tensorboard-rs's record framing
/// and summaries on a file of our own, so that a full disk or a vanished directory is an error naming the file.
pub struct EventWriter {
    path: PathBuf,
    records: RecordWriter<File>,
}

impl EventWriter {
    /// A new event file in `dir` (created if missing).
    pub fn create(dir: &Path) -> Result<EventWriter, TensorboardError> {
        std::fs::create_dir_all(dir)
            .map_err(|e| TensorboardError { path: dir.to_path_buf(), problem: e.to_string() })?;
        let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
        let path = dir.join(format!("events.out.tfevents.{:010}.othello-zero.{}", now.as_secs(), std::process::id()));
        let file = File::create(&path).map_err(|e| TensorboardError { path: path.clone(), problem: e.to_string() })?;
        let mut writer = EventWriter { path, records: RecordWriter::new(file) };
        let mut version = Event::new();
        version.set_wall_time(now.as_secs_f64());
        version.set_file_version("brain.Event:2".to_string());
        writer.write(&version)?;
        Ok(writer)
    }

    fn write(&mut self, event: &Event) -> Result<(), TensorboardError> {
        let fail = |problem: String| TensorboardError { path: self.path.clone(), problem };
        let bytes = event.write_to_bytes().map_err(|e| fail(e.to_string()))?;
        self.records.write(&bytes).map_err(|e| fail(e.to_string()))
    }

    /// Writes `values` (tag, value) at `step` and flushes them.
    pub fn scalars(&mut self, values: &[(&str, f32)], step: u64) -> Result<(), TensorboardError> {
        let wall_time = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default().as_secs_f64();
        for (name, value) in values {
            let mut event = Event::new();
            event.set_wall_time(wall_time);
            event.set_step(step as i64);
            event.set_summary(tensorboard_rs::summary::scalar(name, *value));
            self.write(&event)?;
        }
        self.records.flush().map_err(|e| TensorboardError { path: self.path.clone(), problem: e.to_string() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A full disk is an error naming the event file, not a panic.
    #[test]
    fn a_full_disk_is_an_error_naming_the_event_file() {
        let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else { return };
        let mut writer = EventWriter { path: PathBuf::from("/dev/full"), records: RecordWriter::new(full) };
        let err = writer.scalars(&[("loss", 1.0)], 3).unwrap_err().to_string();
        assert!(err.contains("/dev/full"), "{err}");
    }
}
