//! The FFO endgame suite (data/ffo-40-59.txt): exact scores and every best move (in the normal suite
//! one best move for #59, as Edax reports it: see `Mode::BestMove`).

use othello_core::problem::Problem;
use othello_core::solve::{Limits, Mode, Solver};
use othello_core::{Rules, Scoring};

fn problems() -> Vec<Problem> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../data/ffo-40-59.txt");
    let text = std::fs::read_to_string(path).expect("the FFO suite in data/");
    text.lines().filter_map(Problem::parse).map(|p| p.expect("the suite parses")).collect()
}

fn check(ids: std::ops::RangeInclusive<u32>, mode: Mode) {
    // FFO scores count the empties of an early end for the winner.
    let rules = Rules { scoring: Scoring::EmptiesToWinner, ..Rules::othello() };
    let mut solver = Solver::new();
    let problems = problems();
    assert_eq!(problems.len(), 20);
    for p in problems.iter().filter(|p| ids.contains(&p.id.as_ref().unwrap()[3..].parse().unwrap())) {
        let s = solver.solve(&rules, &p.position, mode, Limits::default()).unwrap();
        let id = p.id.as_deref().unwrap();
        eprintln!("{id}: {:+} {:?} {} nodes {:.2} s", s.score, s.best_moves, s.nodes, s.elapsed.as_secs_f64());
        assert_eq!(Some(s.score), p.score, "{id} score");
        let mut want: Vec<String> = p.best_moves.as_ref().unwrap().iter().map(|m| m.to_string()).collect();
        let mut got: Vec<String> = s.best_moves.iter().map(|m| m.to_string()).collect();
        if mode == Mode::BestMove {
            assert!(got.len() == 1 && want.contains(&got[0]), "{id}: {got:?} is not one of {want:?}");
        } else {
            want.sort();
            got.sort();
            assert_eq!(got, want, "{id} best moves");
        }
    }
}

#[test]
fn ffo_40_to_44() {
    check(40..=44, Mode::Exact);
}

/// About a minute on one core (docs/BENCHMARKS.md).
#[test]
fn ffo_45_to_49() {
    check(45..=49, Mode::Exact);
}

/// 34 empties and a wipeout: the score and one best move take a fraction of a second; proving that no other move
/// wipes out too (`ffo_50_to_59`) takes minutes.
#[test]
fn ffo_59_score_and_one_best_move() {
    check(59..=59, Mode::BestMove);
}

#[test]
#[ignore = "slow: FFO #50-#59 with every best move (about 15 minutes on one core); run with --ignored"]
fn ffo_50_to_59() {
    check(50..=59, Mode::Exact);
}
