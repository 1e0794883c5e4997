//! The training log in `RUN/logs`: TensorBoard event files (one per trainer session, as TensorBoard expects) and
//! `scalars.csv`, the same figures as plain text. A resumed trainer first cuts `scalars.csv` back to its
//! checkpoint's step, so the file never holds a step twice; TensorBoard itself drops the orphaned points of an
//! older event file when a newer one goes back in steps.

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use othello_run::tensorboard::{EventWriter, TensorboardError};
use othello_run::{write_atomic, RunDir};
use thiserror::Error;

use crate::loss::StepFigures;

#[derive(Debug, Error)]
#[error("training log {}: {problem}", path.display())]
pub struct LogError {
    pub path: PathBuf,
    pub problem: String,
}

impl From<TensorboardError> for LogError {
    fn from(e: TensorboardError) -> LogError {
        LogError { path: e.path, problem: e.problem }
    }
}

/// The columns of `scalars.csv`.
pub const COLUMNS: [&str; 13] = [
    "step",
    "samples",
    "learning_rate",
    "window",
    "positions",
    "samples_per_second",
    "loss",
    "policy_loss",
    "value_loss",
    "margin_loss",
    "ownership_loss",
    "policy_entropy",
    "value_accuracy",
];

/// One line of the training log: the means since the previous line.
#[derive(Clone, Debug, Default)]
pub struct LogLine {
    pub step: u64,
    pub samples: u64,
    pub learning_rate: f64,
    pub window: u64,
    pub positions: u64,
    pub samples_per_second: f64,
    pub figures: StepFigures,
}

pub struct RunLog {
    csv: File,
    csv_path: PathBuf,
    tensorboard: EventWriter,
}

impl RunLog {
    /// Opens the log of a run continuing after `step`: lines of later steps (written after the checkpoint a
    /// killed trainer resumes from) are dropped.
    pub fn open(run: &RunDir, step: u64) -> Result<RunLog, LogError> {
        let (dir, csv_path) = (run.logs(), run.scalars());
        let err = |problem: String| LogError { path: csv_path.clone(), problem };
        std::fs::create_dir_all(&dir).map_err(|e| err(format!("creating {}: {e}", dir.display())))?;
        let header = COLUMNS.join(",");
        let mut kept = vec![header.clone()];
        if let Ok(file) = File::open(&csv_path) {
            for (i, line) in BufReader::new(file).lines().enumerate() {
                let line = line.map_err(|e| err(format!("line {}: {e}", i + 1)))?;
                if i == 0 {
                    if line != header {
                        return Err(err(format!("line 1: unexpected header '{line}'")));
                    }
                    continue;
                }
                // A line cut short by a kill has fewer columns: dropped like the lines after the checkpoint.
                let logged_step = line.split(',').next().and_then(|s| s.parse::<u64>().ok());
                if line.split(',').count() == COLUMNS.len() && logged_step.is_some_and(|s| s <= step) {
                    kept.push(line);
                }
            }
        }
        write_atomic(&csv_path, (kept.join("\n") + "\n").as_bytes()).map_err(|e| err(e.to_string()))?;
        let csv = OpenOptions::new().append(true).open(&csv_path).map_err(|e| err(e.to_string()))?;
        Ok(RunLog { csv, csv_path, tensorboard: EventWriter::create(&dir).map_err(LogError::from)? })
    }

    pub fn write(&mut self, line: &LogLine) -> Result<(), LogError> {
        let mut values = vec![
            ("learning_rate", line.learning_rate as f32),
            ("window", line.window as f32),
            ("positions", line.positions as f32),
            ("samples_per_second", line.samples_per_second as f32),
        ];
        values.extend(line.figures.named());
        self.tensorboard.scalars(&values, line.step)?;
        let mut text = format!("{},{}", line.step, line.samples);
        for (_, value) in &values {
            text.push_str(&format!(",{value}"));
        }
        writeln!(self.csv, "{text}").map_err(|e| LogError { path: self.csv_path.clone(), problem: e.to_string() })
    }
}

/// Reads `scalars.csv` back: one row of values per logged step, in the order of [`COLUMNS`]. A last line without
/// its newline is one being appended (another process may be writing the log) and is left out.
pub fn read_scalars(path: &Path) -> Result<Vec<Vec<f64>>, LogError> {
    let err = |problem: String| LogError { path: path.to_path_buf(), problem };
    let text = std::fs::read_to_string(path).map_err(|e| err(e.to_string()))?;
    let whole = &text[..text.rfind('\n').map_or(0, |end| end + 1)];
    whole
        .lines()
        .enumerate()
        .skip(1)
        .map(|(i, line)| {
            let row: Vec<f64> = line
                .split(',')
                .map(|v| v.parse::<f64>().map_err(|e| err(format!("line {}: '{v}': {e}", i + 1))))
                .collect::<Result<_, _>>()?;
            if row.len() != COLUMNS.len() {
                return Err(err(format!("line {}: {} values, expected {}", i + 1, row.len(), COLUMNS.len())));
            }
            Ok(row)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The log read while the trainer appends to it: the half-written line is left out, a malformed whole line
    /// is an error naming the file and line.
    #[test]
    fn reading_the_log_leaves_out_a_line_being_written() {
        let scratch = tempfile::tempdir().unwrap();
        let path = scratch.path().join("log.csv");
        let row = |step: usize| (0..COLUMNS.len()).map(|i| (step * 100 + i).to_string()).collect::<Vec<_>>();
        let whole = format!("{}\n{}\n{}\n", COLUMNS.join(","), row(1).join(","), row(2).join(","));
        std::fs::write(&path, format!("{whole}{}", row(3)[..3].join(","))).unwrap();
        let rows = read_scalars(&path).unwrap();
        assert_eq!(rows.iter().map(|r| r[0]).collect::<Vec<_>>(), vec![100.0, 200.0]);
        std::fs::write(&path, format!("{whole}{}\n", row(3)[..3].join(","))).unwrap();
        let err = read_scalars(&path).unwrap_err().to_string();
        assert!(err.contains("log.csv") && err.contains("line 4") && err.contains("3 values"), "{err}");
    }
}
