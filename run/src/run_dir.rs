//! The layout of a run directory. Every stage finds its files through [`RunDir`]; no other code spells a path
//! inside a run (a test of this crate reads the workspace's sources to keep it so).

use std::path::{Path, PathBuf};

/// A run directory (docs/ARCHITECTURE.md lists every file in it with its fields).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunDir {
    root: PathBuf,
}

impl RunDir {
    pub fn new(root: impl Into<PathBuf>) -> RunDir {
        RunDir { root: root.into() }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `config.toml`: the run's config, which every stage reads.
    pub fn config(&self) -> PathBuf {
        self.root.join("config.toml")
    }

    /// When the run began, in Unix seconds: its config file's modification time (written once, when the run
    /// began), if it can be read.
    pub fn started_at(&self) -> Option<u64> {
        let modified = std::fs::metadata(self.config()).and_then(|m| m.modified()).ok()?;
        modified.duration_since(std::time::UNIX_EPOCH).ok().map(|d| d.as_secs())
    }

    /// `warm-start.txt`: in a run begun from another network's weights, that checkpoint's path (one line).
    pub fn warm_start(&self) -> PathBuf {
        self.root.join("warm-start.txt")
    }

    /// `replay/`: replay shards from the self-play workers.
    pub fn replay(&self) -> PathBuf {
        self.root.join("replay")
    }

    /// `models/`: checkpoints (weights, sidecars, optimiser states) from the trainer.
    pub fn models(&self) -> PathBuf {
        self.root.join("models")
    }

    /// The run a checkpoint file lies in, where `checkpoint` is `RUN/models/FILE`; None for a file elsewhere.
    pub fn of_checkpoint(checkpoint: &Path) -> Option<RunDir> {
        let models = checkpoint.parent().filter(|dir| dir.file_name().is_some_and(|name| name == "models"))?;
        models.parent().map(RunDir::new)
    }

    /// `models/best.txt`: in a gated run, the file name of the model self-play plays with.
    pub fn best_checkpoint_record(&self) -> PathBuf {
        self.models().join("best.txt")
    }

    /// `logs/`: the training log (`scalars.csv`, TensorBoard event files, `curves.svg`) and each stage's output.
    pub fn logs(&self) -> PathBuf {
        self.root.join("logs")
    }

    /// `logs/scalars.csv`: the training figures as plain text, one line per logged step.
    pub fn scalars(&self) -> PathBuf {
        self.logs().join("scalars.csv")
    }

    /// `logs/curves.svg`: the training curves as a picture.
    pub fn curves(&self) -> PathBuf {
        self.logs().join("curves.svg")
    }

    /// `logs/<stage>.log`: the output of a stage started by `run`.
    pub fn stage_log(&self, stage: &str) -> PathBuf {
        self.logs().join(format!("{stage}.log"))
    }

    /// `logs/eval/`: the evaluation stage's TensorBoard event files (Elo by step), a TensorBoard run of its own.
    pub fn eval_logs(&self) -> PathBuf {
        self.logs().join("eval")
    }

    /// `locks/<role>.lock`: held by the one process in the role (`run`, `trainer`, `evaluation`, `selfplay-<id>`)
    /// while it lives; it names the holder.
    pub fn lock(&self, role: &str) -> PathBuf {
        self.root.join("locks").join(format!("{role}.lock"))
    }

    /// `eval/`: evaluation games and ratings.
    pub fn eval(&self) -> PathBuf {
        self.root.join("eval")
    }

    /// `eval/gate/<model>/`: in a gated run, the test of checkpoint `<model>` (its file stem) against the best.
    pub fn gate(&self, checkpoint_stem: &str) -> PathBuf {
        self.eval().join("gate").join(checkpoint_stem)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_lie_inside_the_run() {
        let run = RunDir::new("/runs/a");
        for path in [
            run.config(),
            run.warm_start(),
            run.replay(),
            run.models(),
            run.best_checkpoint_record(),
            run.logs(),
            run.eval_logs(),
            run.eval(),
            run.gate("model-000000100"),
            run.lock("trainer"),
            run.scalars(),
            run.curves(),
        ] {
            assert!(path.starts_with(run.root()) && path != run.root(), "{}", path.display());
        }
        assert_eq!(run.stage_log("train"), Path::new("/runs/a/logs/train.log"));
        let checkpoint = run.models().join("model-000000250.bpk");
        assert_eq!(RunDir::of_checkpoint(&checkpoint).map(|r| r.root().to_path_buf()), Some(run.root().to_path_buf()));
        assert!(RunDir::of_checkpoint(Path::new("/runs/a/logs/model-000000250.bpk")).is_none());
    }

    /// The layout lives in this file alone: no other source file of the workspace spells a run-directory path.
    #[test]
    fn no_other_source_file_spells_a_run_directory_path() {
        let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let this = Path::new(file!()).file_name().expect("a file name");
        let names = [
            "replay",
            "models",
            "logs",
            "eval",
            "gate",
            "config.toml",
            "warm-start.txt",
            "best.txt",
            "scalars.csv",
            "curves.svg",
            "locks",
        ];
        let mut spelt = vec![];
        let mut files = 0;
        for dir in ["src", "tests", "core", "run", "net", "selfplay", "train", "eval"] {
            for path in rust_files(&workspace.join(dir)) {
                files += 1;
                if path.file_name() == Some(this) && path.parent().is_some_and(|p| p.ends_with("run/src")) {
                    continue;
                }
                let text = std::fs::read_to_string(&path).expect("a readable source file");
                for (i, line) in text.lines().enumerate() {
                    for name in names {
                        // A join of the name, alone or as the start of a longer path, in code or in tests, or a
                        // comparison with it.
                        let spelt_here =
                            [format!("join(\"{name}\""), format!("join(\"{name}/"), format!("== \"{name}\"")];
                        if spelt_here.iter().any(|spelling| line.contains(spelling.as_str())) {
                            spelt.push(format!("{}:{}: {}", path.display(), i + 1, line.trim()));
                        }
                    }
                }
            }
        }
        assert!(files > 50, "the workspace's sources were not found ({files} files)");
        assert!(spelt.is_empty(), "run-directory paths spelt outside RunDir:\n{}", spelt.join("\n"));
    }

    fn rust_files(dir: &Path) -> Vec<PathBuf> {
        let mut out = vec![];
        let Ok(entries) = std::fs::read_dir(dir) else { return out };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() && !path.ends_with("target") {
                out.extend(rust_files(&path));
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
        out
    }
}
