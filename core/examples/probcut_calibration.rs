//! Measures how far a shallow search on the pattern evaluation lands from the exact score, by empties and depth:
//! the spreads the solver's probcut margins are set from (`probcut_margin` in `solve.rs`).
//!
//! `cargo run --release -p othello-core --example probcut_calibration [WTHOR files]` (default: WTHOR 2010-2015
//! in data/wthor). Positions are taken from real games at each number of empties and solved exactly.

use othello_core::pattern::{PatternWeights, SCALE};
use othello_core::solve::{Limits, Mode, Solver};
use othello_core::wthor::WthorFile;
use othello_core::{Position, Rules, Status};

const DEPTHS: usize = 7;
const PER_EMPTIES: usize = 120;

/// Plain negamax to `depth` on the pattern evaluation, in its units (finished games: SCALE per disc), as the
/// solver's probes score positions.
fn negamax(weights: &PatternWeights, pos: &Position, depth: u32, mut alpha: i32, beta: i32) -> i32 {
    if depth == 0 {
        return weights.evaluate(pos.player.0, pos.opponent.0);
    }
    let moves = pos.moves();
    if moves.is_empty() {
        if pos.pass().moves().is_empty() {
            return SCALE * (pos.player.count() as i32 - pos.opponent.count() as i32);
        }
        return -negamax(weights, &pos.pass(), depth, -beta, -alpha);
    }
    let mut best = i32::MIN + 1;
    for sq in moves {
        let v = -negamax(weights, &pos.play_unchecked(sq), depth - 1, -beta, -alpha);
        best = best.max(v);
        alpha = alpha.max(v);
        if alpha >= beta {
            break;
        }
    }
    best
}

fn main() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../data/wthor");
    let mut files: Vec<String> = std::env::args().skip(1).collect();
    if files.is_empty() {
        files = (2010..=2015).map(|y| format!("{dir}/WTH_{y}.wtb")).collect();
    }
    let mut games = vec![];
    for f in &files {
        let bytes = std::fs::read(f).unwrap_or_else(|e| panic!("{f}: {e}"));
        games.extend(WthorFile::parse(&bytes).unwrap_or_else(|e| panic!("{f}: {e}")).games);
    }
    let rules = Rules::othello();
    let weights = PatternWeights::builtin();
    let mut solver = Solver::new();
    println!("empties  n  depth: mean (exact - probe) / sd, in discs");
    for empties in (12..=22).step_by(2) {
        let (mut n, mut sum, mut squares) = (0, [0.0; DEPTHS], [0.0; DEPTHS]);
        for game in games.iter().step_by(7) {
            let Ok(replayed) = game.replay() else { continue };
            let Some(pos) = replayed.position_with_empties(empties) else { continue };
            if !matches!(rules.status(pos), Status::Moves(_)) {
                continue;
            }
            let exact = solver.solve(&rules, pos, Mode::Exact, Limits::default()).expect("solves").score as f64;
            for d in 0..DEPTHS {
                let probe = negamax(weights, pos, d as u32, -(1 << 20), 1 << 20) as f64 / SCALE as f64;
                sum[d] += exact - probe;
                squares[d] += (exact - probe).powi(2);
            }
            n += 1;
            if n == PER_EMPTIES {
                break;
            }
        }
        let cols: Vec<String> = (0..DEPTHS)
            .map(|d| {
                let mean = sum[d] / n as f64;
                format!("d{d} {mean:+.2}/{:.2}", (squares[d] / n as f64 - mean * mean).sqrt())
            })
            .collect();
        println!("{empties:>7} {n:>3}  {}", cols.join("  "));
    }
}
