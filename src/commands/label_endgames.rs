//! `othello-zero label-endgames`: exact labels for the evaluation fit, solved on several threads, saved as it goes
//! (a run stopped at any point, even by `kill -9`, resumes after the last saved round).

use std::path::{Path, PathBuf};

use anyhow::{ensure, Context, Result};
use othello_core::pattern::label::{label_game, Label, LabelFile, LabelRun};
use othello_core::solve::Solver;
use othello_core::wthor::WthorGame;

use crate::progress::ProgressDisplay;

/// Solve the positions of WTHOR games with few empties exactly, as labels for `fit-eval --labels`.
///
/// One other child of each is solved too. Saves as it goes; run again with the same settings to resume.
#[derive(clap::Args)]
pub struct LabelEndgamesArgs {
    /// WTHOR game files.
    #[arg(num_args = 1.., required = true)]
    wthor: Vec<PathBuf>,
    /// The label file to write (or resume).
    #[arg(long)]
    out: PathBuf,
    /// Label every N-th game of the files.
    #[arg(long, value_parser = crate::flags::positive::<u32>, default_value_t = 10)]
    every: u32,
    /// The fewest empties of a labelled position.
    #[arg(long, default_value_t = 6)]
    min_empties: u8,
    /// The most empties of a labelled position.
    #[arg(long, default_value_t = 18)]
    max_empties: u8,
    /// Seed for the other children.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Threads (one solver each; default: one per core).
    #[arg(long, value_parser = crate::flags::thread_count)]
    threads: Option<usize>,
}

pub fn label_endgames(a: LabelEndgamesArgs) -> Result<()> {
    let (every, min_empties, max_empties, seed) = (a.every, a.min_empties, a.max_empties, a.seed);
    let labels = LabelRun { every, min_empties, max_empties, seed, games_done: 0 };
    label_files(&a.wthor, &a.out, labels, a.threads.unwrap_or_else(crate::flags::available_threads))
}

/// Games per thread between saves.
const ROUND: usize = 16;

fn label_files(wthor: &[PathBuf], out: &Path, run: LabelRun, threads: usize) -> Result<()> {
    ensure!(run.every > 0, "--every must be at least 1");
    ensure!(run.min_empties <= run.max_empties, "--min-empties is above --max-empties");
    let games = crate::input::read_wthor_games(wthor)?;
    let selected: Vec<(u64, WthorGame)> =
        games.into_iter().step_by(run.every as usize).enumerate().map(|(i, g)| (i as u64, g)).collect();
    let mut file = match std::fs::read(out) {
        Ok(bytes) => {
            let file = LabelFile::from_bytes(&bytes).with_context(|| out.display().to_string())?;
            let same = LabelRun { games_done: file.run.games_done, ..run };
            ensure!(
                file.run == same,
                "{} was made with other settings ({:?}); give another --out or the same settings",
                out.display(),
                file.run
            );
            eprintln!("{}: resuming after {} games", out.display(), file.run.games_done);
            file
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => LabelFile { run, labels: vec![] },
        Err(e) => return Err(e).with_context(|| format!("reading {}", out.display())),
    };
    let mut solvers: Vec<Solver> = (0..threads).map(|_| Solver::new()).collect();
    let empties = run.min_empties as u32..=run.max_empties as u32;
    let mut display = ProgressDisplay::new(Some(selected.len() as u64), "games");
    display.set(file.run.games_done, None, "");
    let resumed_at = file.labels.len();
    for round in selected[file.run.games_done.min(selected.len() as u64) as usize..].chunks(ROUND * threads) {
        let labelled: Vec<Vec<Label>> = std::thread::scope(|scope| {
            let handles: Vec<_> = round
                .chunks(ROUND)
                .zip(solvers.iter_mut())
                .map(|(chunk, solver)| {
                    let empties = empties.clone();
                    scope.spawn(move || -> Result<Vec<Label>> {
                        let mut labels = vec![];
                        for (index, game) in chunk {
                            // A game that does not replay has nothing to label (fit-eval skips it too).
                            let Ok(replayed) = game.replay() else { continue };
                            labels.extend(label_game(&replayed, empties.clone(), run.seed ^ index, solver)?);
                        }
                        Ok(labels)
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().expect("a labelling thread does not panic")).collect::<Vec<_>>()
        })
        .into_iter()
        .collect::<Result<_>>()?;
        file.labels.extend(labelled.into_iter().flatten());
        file.run.games_done += round.len() as u64;
        othello_run::write_atomic(out, &file.to_bytes()).with_context(|| format!("writing {}", out.display()))?;
        let secs = display.elapsed().as_secs_f64().max(1e-9);
        let per_second = (file.labels.len() - resumed_at) as f64 / secs;
        display.set(file.run.games_done, None, &format!("{per_second:.0} positions/s"));
    }
    display.finish();
    outln!("{}: {} labels from {} games", out.display(), file.labels.len(), file.run.games_done);
    Ok(())
}
