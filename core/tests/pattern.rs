//! The shipped pattern evaluation against exact values: positions from real games, solved by the solver.

use othello_core::pattern::{PatternWeights, SCALE};
use othello_core::solve::{Limits, Mode, Solver};
use othello_core::wthor::WthorFile;
use othello_core::{Rules, Status};

/// At 16 empties, positions of WTHOR 2015 (every 10th game): the evaluation's error against the exact score is a
/// fraction of the scores' own spread, and it tells the winner most of the time.
#[test]
fn shipped_weights_predict_exact_endgame_scores() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../data/wthor/WTH_2015.wtb");
    let file = WthorFile::parse(&std::fs::read(path).expect("WTHOR in data/wthor")).expect("WTHOR parses");
    let rules = Rules::othello();
    let weights = PatternWeights::builtin();
    let mut solver = Solver::new();
    let (mut n, mut squares, mut spread, mut winner) = (0, 0.0, 0.0, 0);
    for game in file.games.iter().step_by(10) {
        let Ok(replayed) = game.replay() else { continue };
        let Some(pos) = replayed.position_with_empties(16) else { continue };
        if !matches!(rules.status(pos), Status::Moves(_)) {
            continue;
        }
        let exact = solver.solve(&rules, pos, Mode::Exact, Limits::default()).unwrap().score as f64;
        let predicted = weights.evaluate(pos.player.0, pos.opponent.0) as f64 / SCALE as f64;
        squares += (predicted - exact).powi(2);
        spread += exact * exact;
        winner += (predicted.signum() == exact.signum()) as usize;
        n += 1;
    }
    let (error, spread) = ((squares / n as f64).sqrt(), (spread / n as f64).sqrt());
    eprintln!("{n} positions: error {error:.2} discs, spread {spread:.2}, winner right {winner}");
    assert!(n > 100, "{n} positions");
    assert!(error < 0.6 * spread, "error {error:.2} vs spread {spread:.2}");
    assert!(winner * 10 > n * 7, "winner right in {winner} of {n}");
}
