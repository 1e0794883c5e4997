//! The solver's fast paths (selective passes, aspiration, one best move, win/draw/loss) against its plainest one:
//! every root move searched alone in the full window (`Mode::AllMoves`), on positions from real games.

use othello_core::solve::{Limits, Mode, Solver};
use othello_core::wthor::WthorFile;
use othello_core::{Move, Rules, Status};

#[test]
fn every_mode_agrees_with_full_window_scores_of_each_move() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../data/wthor/WTH_2014.wtb");
    let file = WthorFile::parse(&std::fs::read(path).expect("WTHOR in data/wthor")).expect("WTHOR parses");
    let rules = Rules::othello();
    let mut solver = Solver::new();
    let mut checked = 0;
    // 14 to 19 empties: deep enough for the selective passes (probcut from 10 empties) and the probes' move
    // ordering (from 18), shallow enough to search every move in the full window.
    for (i, game) in file.games.iter().step_by(23).take(90).enumerate() {
        let Ok(replayed) = game.replay() else { continue };
        let empties = 14 + (i % 6) as u32;
        let Some(pos) = replayed.position_with_empties(empties) else { continue };
        if !matches!(rules.status(pos), Status::Moves(_)) {
            continue;
        }
        let all = solver.solve(&rules, pos, Mode::AllMoves, Limits::default()).unwrap();
        let want = all.move_scores[0].1;
        let mut best: Vec<Move> = all.move_scores.iter().filter(|m| m.1 == want).map(|m| m.0).collect();
        best.sort_by_key(|m| m.to_string());

        let mut exact = solver.solve(&rules, pos, Mode::Exact, Limits::default()).unwrap();
        exact.best_moves.sort_by_key(|m| m.to_string());
        assert_eq!((exact.score, &exact.best_moves), (want, &best), "{pos}");
        let one = solver.solve(&rules, pos, Mode::BestMove, Limits::default()).unwrap();
        assert_eq!(one.score, want, "{pos}");
        assert!(one.best_moves.len() == 1 && best.contains(&one.best_moves[0]), "{pos}: {:?}", one.best_moves);
        let wdl = solver.solve(&rules, pos, Mode::WinDrawLoss, Limits::default()).unwrap();
        assert_eq!(wdl.score, want.signum(), "{pos}");
        checked += 1;
    }
    assert!(checked > 60, "{checked} positions");
}
