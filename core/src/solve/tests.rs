//! The solver against plain minimax, brute force and known scores, on every rule variant.

use super::*;
use crate::{Bitboard, Game};
use rand::{Rng, SeedableRng};

/// Plain minimax through the `Rules` API: no pruning, no table, no kernel-specific code.
fn minimax(rules: &Rules, pos: &Position) -> i32 {
    match rules.status(pos) {
        Status::Over => rules.outcome(pos).margin_for(pos.side),
        Status::MustPass => -minimax(rules, &pos.pass()),
        Status::Moves(m) => m.map(|sq| -minimax(rules, &rules.play_legal(pos, sq))).max().unwrap(),
    }
}

/// The minimax score of `pos` and its best moves (by name; a forced pass is the only move when there is no
/// other).
fn minimax_best(rules: &Rules, pos: &Position) -> (i32, Vec<String>) {
    let children: Vec<(Move, i32)> = match rules.status(pos) {
        Status::Over => vec![],
        Status::MustPass => vec![(Move::Pass, -minimax(rules, &pos.pass()))],
        Status::Moves(m) => m.map(|sq| (Move::Play(sq), -minimax(rules, &rules.play_legal(pos, sq)))).collect(),
    };
    let want = children.iter().map(|c| c.1).max().unwrap_or_else(|| minimax(rules, pos));
    let best: Vec<Move> = children.iter().filter(|c| c.1 == want).map(|c| c.0).collect();
    (want, sorted(&best))
}

/// A position from a random game with `empties` empty squares left (or fewer, if the game ends first).
fn random_position(rules: &Rules, empties: u32, rng: &mut impl Rng) -> Position {
    let mut game = Game::new(*rules);
    let total = rules.mask().count_ones();
    while !game.is_over() && total - game.position().occupied().count() > empties {
        let mv = match game.status() {
            Status::Moves(m) => Move::Play(m.nth(rng.random_range(0..m.count())).unwrap()),
            _ => Move::Pass,
        };
        game.push(mv).unwrap();
    }
    *game.position()
}

#[test]
fn progress_reports_the_passes_in_order_and_the_last_window_holds_the_score() {
    let rules = Rules { scoring: Scoring::EmptiesToWinner, ..Rules::othello() };
    let ffo40 = "O--OOOOX-OOOOOOXOOXXOOOXOOXOOOXXOOOOOOXX---OOOOX----O--X-------- X";
    let (pos, _) = Position::parse_board(ffo40).unwrap();
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let mut solver = Solver::new();
    let log = seen.clone();
    solver.on_progress(move |p| log.lock().unwrap().push(*p));
    let solution = solver.solve(&rules, &pos, Mode::Exact, Limits::default()).unwrap();
    let seen = seen.lock().unwrap();
    assert!(seen.windows(2).all(|w| w[0].nodes <= w[1].nodes && w[0].elapsed <= w[1].elapsed));
    assert!(seen.len() > 3 && seen.iter().all(|p| p.nodes <= solution.nodes), "{seen:?}");
    let passes: Vec<(Option<u8>, (i32, i32))> = seen
        .iter()
        .filter_map(|p| match p.stage {
            Stage::Pass { confidence, window } => Some((confidence, window)),
            Stage::Moves { .. } => None,
        })
        .collect();
    // The selective pass comes first; the exact pass's last window is the one the score fell inside.
    assert_eq!(passes.first().unwrap().0, Some(PROBCUT_CONFIDENCE[0]), "{passes:?}");
    let (confidence, (lo, hi)) = *passes.last().unwrap();
    assert!(confidence.is_none() && lo < solution.score && solution.score < hi, "{passes:?} {}", solution.score);
    // Then every root move is tested against the score, in order.
    let moves: Vec<Stage> = seen.iter().map(|p| p.stage).skip_while(|s| matches!(s, Stage::Pass { .. })).collect();
    let of = pos.moves().count() as usize;
    assert!((0..of).all(|done| moves.contains(&Stage::Moves { done, of })), "{moves:?}");
}

#[test]
fn a_fresh_table_makes_each_solve_independent_of_the_ones_before() {
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(31);
    let rules = Rules::othello();
    let positions: Vec<Position> =
        (0..6).map(|_| random_position(&rules, rng.random_range(14..=17), &mut rng)).collect();
    // A small table, so that what earlier solves leave in it matters.
    let solver = |fresh| {
        let mut s = Solver::new();
        s.set_table_bytes(1 << 16);
        s.set_fresh_table(fresh);
        s
    };
    let nodes = |s: &mut Solver, pos| s.solve(&rules, pos, Mode::Exact, Limits::default()).unwrap().nodes;
    let alone: Vec<u64> = positions.iter().map(|pos| nodes(&mut solver(false), pos)).collect();
    let in_turn = |fresh| {
        let mut s = solver(fresh);
        let mut got: Vec<u64> = positions.iter().rev().map(|pos| nodes(&mut s, pos)).collect();
        got.reverse();
        got
    };
    assert_eq!(in_turn(true), alone);
    assert_ne!(in_turn(false), alone, "the table's history made no difference: the test shows nothing");
}

#[test]
fn solving_many_on_threads_reports_each_position_once_with_its_sequential_answer() {
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(29);
    let variants = [Rules::othello(), Rules::reverse(), Rules::othello().with_size(6).unwrap()];
    let jobs: Vec<(Rules, Position)> = (0..30)
        .map(|i| {
            let rules = variants[i % variants.len()];
            (rules, random_position(&rules, rng.random_range(2..=12), &mut rng))
        })
        .collect();
    // The score and the best moves, in a fixed order (the order found depends on the table's history).
    let answer = |s: Solution| (s.score, sorted(&s.best_moves));
    let mut solver = Solver::new();
    let want: Vec<(i32, Vec<String>)> = jobs
        .iter()
        .map(|(rules, pos)| answer(solver.solve(rules, pos, Mode::Exact, Limits::default()).unwrap()))
        .collect();
    for threads in [1, 3] {
        let mut got = vec![None; jobs.len()];
        solve_many(
            &jobs,
            Mode::Exact,
            Limits::default(),
            threads,
            |_| {},
            |i, s| {
                assert!(got[i].replace(answer(s.unwrap())).is_none(), "position {i} reported twice");
            },
        );
        assert_eq!(got, want.iter().cloned().map(Some).collect::<Vec<_>>(), "{threads} threads");
    }
    // A single position on two threads: its solver searches on both.
    let single = [(Rules::othello(), random_position(&Rules::othello(), 18, &mut rng))];
    let want = answer(solver.solve(&single[0].0, &single[0].1, Mode::Exact, Limits::default()).unwrap());
    let mut got = vec![];
    solve_many(&single, Mode::Exact, Limits::default(), 2, |_| {}, |_, s| got.push(s.unwrap()));
    assert!(got.len() == 1 && got[0].helper_nodes > 0);
    assert_eq!(answer(got.remove(0)), want);
}

#[test]
fn a_solve_on_several_threads_or_with_a_tiny_table_finds_the_answers_of_one() {
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(31);
    let variants = [Rules::othello(), Rules { scoring: Scoring::EmptiesToWinner, ..Rules::reverse() }];
    let (mut one, mut three, mut tiny) = (Solver::new(), Solver::new(), Solver::new());
    three.set_threads(3);
    // A table of two buckets, shared by two threads: nearly every entry is overwritten before it is read
    // again, so any answer taken from another position's entry would show.
    tiny.set_table_bytes(0);
    tiny.set_threads(2);
    let mut helper_nodes = 0;
    for i in 0..12 {
        let rules = variants[i % variants.len()];
        let pos = random_position(&rules, rng.random_range(14..=18), &mut rng);
        let want = one.solve(&rules, &pos, Mode::AllMoves, Limits::default()).unwrap();
        for mode in [Mode::Exact, Mode::BestMove, Mode::AllMoves, Mode::WinDrawLoss] {
            for (solver, name) in [(&mut three, "three threads"), (&mut tiny, "tiny table")] {
                let got = solver.solve(&rules, &pos, mode, Limits::default()).unwrap();
                helper_nodes += got.helper_nodes;
                let context = format!("{} {mode:?} {name}", pos.to_board_string(8));
                match mode {
                    Mode::WinDrawLoss => assert_eq!(got.score, want.score.signum(), "{context}"),
                    _ => assert_eq!(got.score, want.score, "{context}"),
                }
                match mode {
                    Mode::Exact => assert_eq!(sorted(&got.best_moves), sorted(&want.best_moves), "{context}"),
                    Mode::BestMove => assert!(want.best_moves.contains(&got.best_moves[0]), "{context}"),
                    Mode::AllMoves => assert_eq!(got.move_scores, want.move_scores, "{context}"),
                    Mode::WinDrawLoss => {}
                }
            }
        }
    }
    // The helpers did search: the positions are large enough to split.
    assert!(helper_nodes > 0);
}

/// Each scoring, objective and board size, and no passing.
fn rule_variants() -> [Rules; 6] {
    [
        Rules::othello(),
        Rules { scoring: Scoring::EmptiesToWinner, ..Rules::othello() },
        Rules::reverse(),
        Rules { scoring: Scoring::EmptiesToWinner, ..Rules::reverse() },
        Rules { passing: false, ..Rules::othello() },
        Rules::othello().with_size(6).unwrap(),
    ]
}

fn sorted(moves: &[Move]) -> Vec<String> {
    let mut names: Vec<String> = moves.iter().map(Move::to_string).collect();
    names.sort();
    names
}

#[test]
fn the_solver_agrees_with_plain_minimax_on_random_positions() {
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(13);
    let variants = rule_variants();
    let mut solvers: Vec<Solver> = KernelKind::available().into_iter().map(Solver::with_kernel).collect();
    let mut checked = 0;
    for i in 0..3000 {
        let rules = variants[i % variants.len()];
        let empties = if i % 20 == 0 { rng.random_range(9..=10) } else { rng.random_range(1..=8) };
        let pos = random_position(&rules, empties, &mut rng);
        let (want, best) = minimax_best(&rules, &pos);
        for solver in &mut solvers {
            let got = solver.solve(&rules, &pos, Mode::Exact, Limits::default()).unwrap();
            assert_eq!(got.score, want, "{rules} {pos}");
            assert_eq!(sorted(&got.best_moves), best, "best moves of {pos}");
            let one = solver.solve(&rules, &pos, Mode::BestMove, Limits::default()).unwrap();
            assert_eq!(one.score, want, "{rules} {pos}");
            if !best.is_empty() {
                assert!(one.best_moves.len() == 1 && best.contains(&one.best_moves[0].to_string()), "{pos}: {one:?}");
            }
            let wdl = solver.solve(&rules, &pos, Mode::WinDrawLoss, Limits::default()).unwrap();
            assert_eq!(wdl.score, want.signum());
        }
        checked += 1;
    }
    assert_eq!(checked, 3000);
}

/// Windows at the end of the scale (a side going for, or escaping, a wipeout) order moves their own way and
/// cut where the escaping side can take a corner: positions with one side down to one to three discs.
#[test]
fn near_wipeouts_agree_with_plain_minimax() {
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(15);
    let variants = [Rules { scoring: Scoring::EmptiesToWinner, ..Rules::othello() }, Rules::othello()];
    let mut solver = Solver::new();
    let mut wipeouts = 0;
    for i in 0..400 {
        let rules = variants[i % variants.len()];
        let mut pos = random_position(&rules, rng.random_range(7..=11), &mut rng);
        // The opponent keeps a few of its discs; the player gets the rest.
        let mut kept = 0u64;
        for _ in 0..rng.random_range(1..=3) {
            let left = pos.opponent.0 & !kept;
            if left != 0 {
                let nth = rng.random_range(0..left.count_ones());
                kept |= Bitboard(left).nth(nth).unwrap().bit();
            }
        }
        pos.player = Bitboard(pos.player.0 | pos.opponent.0 & !kept);
        pos.opponent = Bitboard(kept);
        let (want, best) = minimax_best(&rules, &pos);
        let got = solver.solve(&rules, &pos, Mode::Exact, Limits::default()).unwrap();
        assert_eq!((got.score, sorted(&got.best_moves)), (want, best), "{rules} {pos}");
        wipeouts += (want.abs() >= 62) as u32;
    }
    // Enough of them end in (or escape) a wipeout by a margin for those windows to be searched.
    assert!(wipeouts >= 40, "{wipeouts} near wipeouts");
}

/// Plays `line` from `pos` (worth `score` to its mover), checking that every position on the way is worth the
/// score to whoever moves there, by `value`, and that the line ends the game with that score.
fn check_line_keeps_the_score(
    rules: &Rules,
    mut pos: Position,
    mut score: i32,
    line: &[Move],
    mut value: impl FnMut(&Position) -> i32,
) {
    for (i, &mv) in line.iter().enumerate() {
        pos = rules.play(&pos, mv).unwrap_or_else(|e| panic!("move {i} of {line:?}: {e}"));
        score = -score;
        assert_eq!(value(&pos), score, "after move {i} of {line:?}: {pos}");
    }
    assert!(rules.is_over(&pos), "{line:?} stops before the end: {pos}");
    assert_eq!(rules.outcome(&pos).margin_for(pos.side), score, "{line:?}");
}

#[test]
fn principal_variations_are_lines_of_perfect_play() {
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(16);
    let variants = rule_variants();
    let modes = [Mode::Exact, Mode::BestMove, Mode::AllMoves];
    let mut solver = Solver::new();
    solver.set_principal_variation(true);
    let mut passes = 0;
    // Against minimax, up to 9 empties.
    for i in 0..500 {
        let rules = variants[i % variants.len()];
        let pos = random_position(&rules, rng.random_range(1..=9), &mut rng);
        let got = solver.solve(&rules, &pos, modes[i % modes.len()], Limits::default()).unwrap();
        let line = &got.principal_variation;
        assert_eq!(line.first(), got.best_moves.first(), "{rules} {pos}");
        check_line_keeps_the_score(&rules, pos, got.score, line, |p| minimax(&rules, p));
        passes += line.contains(&Move::Pass) as u32;
    }
    assert!(passes >= 10, "{passes} lines with a pass");
    // From 14 to 20 empties, where the table's moves lead the way: each position on the line solved by a
    // solver of its own (another table).
    let rules = Rules::othello();
    let mut checker = Solver::new();
    for _ in 0..10 {
        let pos = random_position(&rules, rng.random_range(14..=20), &mut rng);
        let got = solver.solve(&rules, &pos, Mode::BestMove, Limits::default()).unwrap();
        check_line_keeps_the_score(&rules, pos, got.score, &got.principal_variation, |p| {
            checker.solve(&rules, p, Mode::BestMove, Limits::default()).unwrap().score
        });
    }
    // Without it asked for, or for win/draw/loss alone, there is none.
    let pos = random_position(&rules, 12, &mut rng);
    assert!(solver.solve(&rules, &pos, Mode::WinDrawLoss, Limits::default()).unwrap().principal_variation.is_empty());
    solver.set_principal_variation(false);
    assert!(solver.solve(&rules, &pos, Mode::Exact, Limits::default()).unwrap().principal_variation.is_empty());
}

#[test]
fn all_moves_mode_scores_every_move_exactly() {
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(14);
    let rules = Rules::othello();
    let mut solver = Solver::new();
    for _ in 0..100 {
        let pos = random_position(&rules, 9, &mut rng);
        let got = solver.solve(&rules, &pos, Mode::AllMoves, Limits::default()).unwrap();
        for (mv, score) in &got.move_scores {
            let child = rules.play(&pos, *mv).unwrap();
            assert_eq!(*score, -minimax(&rules, &child));
        }
        let exact = solver.solve(&rules, &pos, Mode::Exact, Limits::default()).unwrap();
        assert_eq!(exact.score, got.score);
        let mut a = exact.best_moves.clone();
        let mut b = got.best_moves.clone();
        a.sort_by_key(|m| m.to_string());
        b.sort_by_key(|m| m.to_string());
        assert_eq!(a, b);
    }
}

/// 4x4 Othello from the start, solved, agrees with brute force over the whole game tree.
#[test]
fn four_by_four_othello_is_solved_from_the_start() {
    let rules = Rules::othello().with_size(4).unwrap();
    let start = rules.start_position();
    let want = minimax(&rules, &start);
    let got = solve(&rules, &start).unwrap();
    assert_eq!(got.score, want);
    // Perfect play on 4x4 is a white win (black, to move, loses).
    assert!(got.score < 0, "{}", got.score);
}

#[test]
#[ignore = "slow: solves 6x6 Othello from the start (minutes)"]
fn six_by_six_othello_is_a_16_20_white_win() {
    let rules = Rules::othello().with_size(6).unwrap();
    let got = solve(&rules, &rules.start_position()).unwrap();
    assert_eq!(got.score, 16 - 20);
}

#[test]
fn limits_give_an_honest_not_solved() {
    let rules = Rules::othello();
    let pos = random_position(&rules, 36, &mut rand_pcg::Pcg64Mcg::seed_from_u64(15));
    let limits = Limits { nodes: Some(100_000), time: None };
    let err = Solver::new().solve(&rules, &pos, Mode::Exact, limits).unwrap_err();
    assert!(matches!(err, SolveError::Limit { empties: 36, .. }), "{err}");
    let err = Solver::new().solve(&rules, &pos, Mode::BestMove, limits).unwrap_err();
    assert!(matches!(err, SolveError::Limit { empties: 36, .. }), "{err}");
    // A limit far below the interval at which limits are checked still stops the solve near it.
    let few = Solver::new().solve(&rules, &pos, Mode::Exact, Limits { nodes: Some(1000), time: None }).unwrap_err();
    let SolveError::Limit { nodes, .. } = few else { panic!("{few}") };
    assert!((1000..20_000).contains(&nodes), "{nodes} nodes for a limit of 1000");
    let limits = Limits { nodes: None, time: Some(Duration::from_millis(50)) };
    assert!(Solver::new().solve(&rules, &pos, Mode::Exact, limits).is_err());
    // On two threads the limit stops the helpers too (the solve returns), and the solver then solves the next
    // position exactly.
    let mut two = Solver::new();
    two.set_threads(2);
    let started = Instant::now();
    let err = two.solve(&rules, &pos, Mode::BestMove, limits).unwrap_err();
    assert!(matches!(err, SolveError::Limit { empties: 36, .. }) && started.elapsed() < Duration::from_secs(5));
    // A node limit counts the helpers' nodes as they go (each hands its count over every CHECK_EVERY nodes), so
    // the solve stops near the limit rather than after the helpers' shares of the split points are done.
    let mut three = Solver::new();
    three.set_threads(3);
    let limit = 4_000_000;
    let err = three.solve(&rules, &pos, Mode::BestMove, Limits { nodes: Some(limit), time: None }).unwrap_err();
    let SolveError::Limit { nodes, .. } = err else { panic!("{err}") };
    assert!((limit..limit * 3 / 2).contains(&nodes), "{nodes} nodes");
    let smaller = random_position(&rules, 16, &mut rand_pcg::Pcg64Mcg::seed_from_u64(16));
    let want = Solver::new().solve(&rules, &smaller, Mode::Exact, Limits::default()).unwrap();
    let got = two.solve(&rules, &smaller, Mode::Exact, Limits::default()).unwrap();
    assert_eq!((got.score, sorted(&got.best_moves)), (want.score, sorted(&want.best_moves)));
}

/// A node with 33 legal moves (more than games reach in practice, but a board string can set one up below
/// the root): white's b2 here leaves black 33 moves. The search from that node orders all 33 (no selective pass
/// under the fewest-discs objective to cut it first) until the node limit stops it.
#[test]
fn nodes_with_more_than_32_moves_are_searched() {
    let text = "----------OXOOO-XXX-XX--O--OO-O---O-OXO--OXX-XO--XOO-OO-O-----X- O";
    let (pos, _) = Position::parse_board(text).unwrap();
    let b2 = pos.play_unchecked("b2".parse().unwrap());
    assert_eq!(b2.moves().count(), 33);
    let mut solver = Solver::new();
    let mut search = solver.start(&Rules::reverse(), Limits { nodes: Some(100_000), time: None });
    search.search(b2.player.0, b2.opponent.0, -65, 65);
    assert!(search.aborted && search.nodes >= 100_000);
}
