//! The FFO endgame suite (../shared/reference/ffo-40-59.txt): exact scores and every best move.

use othello_core::solve::{Limits, Mode, Problem, Solver};
use othello_core::{Rules, Scoring};

fn problems() -> Vec<Problem> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/reference/ffo-40-59.txt");
    let text = std::fs::read_to_string(path).expect("the FFO suite in ../shared/reference");
    text.lines().filter_map(Problem::parse).map(|p| p.expect("the suite parses")).collect()
}

fn check(ids: std::ops::RangeInclusive<u32>) {
    // FFO scores count the empties of an early end for the winner.
    let rules = Rules { scoring: Scoring::EmptiesToWinner, ..Rules::othello() };
    let mut solver = Solver::new();
    let problems = problems();
    assert_eq!(problems.len(), 20);
    for p in problems.iter().filter(|p| ids.contains(&p.id.as_ref().unwrap()[3..].parse().unwrap())) {
        let s = solver.solve(&rules, &p.position, Mode::Exact, Limits::default()).unwrap();
        let id = p.id.as_deref().unwrap();
        eprintln!("{id}: {:+} {:?} {} nodes {:.2} s", s.score, s.best_moves, s.nodes, s.elapsed.as_secs_f64());
        assert_eq!(Some(s.score), p.score, "{id} score");
        let mut want: Vec<String> = p.best_moves.as_ref().unwrap().iter().map(|m| m.to_string()).collect();
        let mut got: Vec<String> = s.best_moves.iter().map(|m| m.to_string()).collect();
        want.sort();
        got.sort();
        assert_eq!(got, want, "{id} best moves");
    }
}

#[test]
fn ffo_40_to_44() {
    check(40..=44);
}

/// About 2.5 minutes on one core (docs/BENCHMARKS.md).
#[test]
fn ffo_45_to_49() {
    check(45..=49);
}

#[test]
#[ignore = "slow: FFO #50-#59 (#53 alone takes 15 minutes on one core); run with --ignored"]
fn ffo_50_to_59() {
    check(50..=59);
}
