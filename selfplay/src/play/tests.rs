use super::*;
use othello_core::Position;
use othello_search::{Evaluation, RolloutEvaluator, UniformEvaluator};

fn small() -> SelfPlayConfig {
    SelfPlayConfig { sims: 64, cheap_sims: 16, full_search_share: 0.5, ..SelfPlayConfig::default() }
}

#[test]
fn simulations_ramp_linearly_to_their_final_count() {
    let ramp = SelfPlayConfig { sims: 32, final_sims: Some(128), sims_ramp_steps: 6000, ..SelfPlayConfig::default() };
    let at = |step| ramp.sims_at(step);
    assert_eq!([at(0), at(1500), at(3000), at(6000), at(60_000)], [32, 56, 80, 128, 128]);
    let shrinking = SelfPlayConfig { final_sims: Some(16), ..ramp.clone() };
    assert_eq!(shrinking.sims_at(3000), 24);
    let fixed = SelfPlayConfig { final_sims: None, ..ramp };
    assert_eq!(fixed.sims_at(3000), 32);
}

#[test]
fn records_are_legal_consistent_and_reproducible() {
    let rules = Rules::othello();
    for seed in 0..4 {
        let a = play_game(rules, &mut RolloutEvaluator::new(seed, 1), &small(), seed);
        let b = play_game(rules, &mut RolloutEvaluator::new(seed, 1), &small(), seed);
        assert_eq!(a.game.moves(), b.game.moves(), "same seed, same game");
        assert_eq!(a.positions, b.positions);
        // The moves replay under the rules, and the recorded positions are the game's.
        let replayed = Game::replay(rules, a.game.moves()).unwrap();
        assert!(replayed.is_over());
        assert_eq!(replayed.outcome(), a.outcome());
        for (i, r) in a.positions.iter().enumerate() {
            assert_eq!(replayed.positions()[r.ply as usize], r.position);
            let legal = rules.legal_moves(&r.position);
            let sum: f32 = r.policy.iter().sum();
            assert!((sum - 1.0).abs() < 1e-4, "policy sums to {sum}");
            for (sq, &p) in r.policy.iter().enumerate() {
                assert!(p == 0.0 || (sq < 64 && legal.0 >> sq & 1 == 1), "policy on illegal {sq}");
            }
            let o = replayed.outcome();
            let mover_margin = o.margin_for(r.position.side);
            assert_eq!(a.value_target(i), mover_margin.signum() as f32);
            let own = a.ownership_target(i).iter().map(|&x| x as i32).sum::<i32>();
            assert_eq!(
                own,
                replayed.position().discs(r.position.side).count() as i32
                    - replayed.position().discs(!r.position.side).count() as i32
            );
        }
        let cheap = a.positions.iter().filter(|r| !r.full_search).count();
        assert!(cheap > 0 && cheap < a.positions.len(), "playout cap randomization mixes both kinds");
    }
}

#[test]
fn gumbel_self_play_records_legal_distributions() {
    let rules = Rules::othello().with_size(6).unwrap();
    let config = SelfPlayConfig { root_selection: RootSelection::Gumbel, sims: 8, ..small() };
    let mut batched = Largest(RolloutEvaluator::new(1, 1), 0);
    let a = play_games(rules, &mut batched, &config, &[1, 2], 2);
    let b = play_games(rules, &mut RolloutEvaluator::new(1, 1), &config, &[1, 2], 1);
    assert!(batched.1 > config.batch, "the rounds of two games share evaluator calls");
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(x.game.moves(), y.game.moves());
        assert!(Game::replay(rules, x.game.moves()).unwrap().is_over());
        for r in &x.positions {
            let legal = rules.legal_moves(&r.position).0;
            assert!((r.policy.iter().sum::<f32>() - 1.0).abs() < 1e-4);
            assert!(r.policy.iter().enumerate().all(|(sq, &p)| p == 0.0 || (sq < 64 && legal >> sq & 1 == 1)));
        }
    }
}

/// Gumbel's draws are self-play's only randomness (the evaluator is a function of the position): with no move
/// drawing, every seed plays the same game; with draws on the first moves, or on all, seeds play different ones.
#[test]
fn gumbel_draws_stop_after_their_moves() {
    let rules = Rules::othello().with_size(6).unwrap();
    let games = |noise_moves: Option<u32>| {
        let config = SelfPlayConfig {
            root_selection: RootSelection::Gumbel,
            sims: 8,
            full_search_share: 1.0,
            gumbel_noise_moves: noise_moves,
            ..small()
        };
        let records = play_games(rules, &mut RolloutEvaluator::new(1, 1), &config, &[1, 2, 3, 4], 4);
        records.into_iter().map(|r| r.game.moves().to_vec()).collect::<std::collections::HashSet<_>>().len()
    };
    assert_eq!(games(Some(0)), 1, "no draws: one game whatever the seed");
    assert!(games(Some(4)) > 1 && games(None) > 1, "draws: the seeds' games differ");
}

/// With the search noiseless, the random opening is a game's only randomness: the seeds' games differ, each
/// replays, is the same again from its seed, and records every searched position from the first one after
/// its opening, whose length varies from 0 to the key.
#[test]
fn random_openings_vary_the_games_and_are_not_recorded() {
    let rules = Rules::othello().with_size(6).unwrap();
    let config = SelfPlayConfig {
        root_selection: RootSelection::Gumbel,
        sims: 8,
        full_search_share: 1.0,
        gumbel_noise_moves: Some(0),
        random_opening_plies: 4,
        ..small()
    };
    let seeds: Vec<u64> = (1..=24).collect();
    let records = play_games(rules, &mut RolloutEvaluator::new(1, 1), &config, &seeds, 8);
    let again = play_games(rules, &mut RolloutEvaluator::new(1, 1), &config, &seeds[..3], 1);
    for (a, b) in records.iter().zip(&again) {
        assert_eq!(a.game.moves(), b.game.moves(), "the same seed, the same opening and game");
    }
    let mut opening_lengths = std::collections::BTreeSet::new();
    for record in &records {
        assert!(Game::replay(rules, record.game.moves()).unwrap().is_over());
        let first = record.positions[0].ply;
        assert!(first <= 4, "the first recorded position follows an opening of at most 4 plies");
        opening_lengths.insert(first);
        // Nothing is solved here: every ply after the opening is recorded but the forced passes.
        let later = record.game.moves().len() - first as usize;
        let passes = record.game.moves()[first as usize..].iter().filter(|m| **m == Move::Pass).count();
        assert_eq!(record.positions.len(), later - passes);
    }
    assert_eq!(opening_lengths.len(), 5, "openings of 0 to 4 plies: {opening_lengths:?}");
    let games: std::collections::HashSet<_> = records.iter().map(|r| r.game.moves().to_vec()).collect();
    assert!(games.len() > 12, "{} distinct games of 24", games.len());
    let noiseless = SelfPlayConfig { random_opening_plies: 0, ..config };
    let same = play_games(rules, &mut RolloutEvaluator::new(1, 1), &noiseless, &seeds[..4], 4);
    assert!(same.iter().all(|r| r.game.moves() == same[0].game.moves()), "without it, one game");
}

/// An evaluator that remembers its largest call.
struct Largest<E>(E, usize);

impl<E: Evaluator> Evaluator for Largest<E> {
    fn evaluate(&mut self, rules: &Rules, positions: &[Position], out: &mut Vec<Evaluation>) {
        self.1 = self.1.max(positions.len());
        self.0.evaluate(rules, positions, out);
    }
}

/// Batching the leaves of many games changes nothing in any one game.
#[test]
fn games_in_flight_do_not_change_the_games() {
    let rules = Rules::othello().with_size(6).unwrap();
    let seeds = [5, 6, 7, 8, 9];
    let one_by_one: Vec<_> =
        seeds.iter().map(|&s| play_game(rules, &mut RolloutEvaluator::new(1, 2), &small(), s)).collect();
    let together = play_games(rules, &mut RolloutEvaluator::new(1, 2), &small(), &seeds, 3);
    for (a, b) in one_by_one.iter().zip(&together) {
        assert_eq!(a.game.moves(), b.game.moves());
        assert_eq!(a.positions, b.positions);
    }
}

#[test]
fn solved_endgames_play_perfectly() {
    let rules = Rules::othello();
    let config = SelfPlayConfig { solve_empties: 10, sims: 16, ..SelfPlayConfig::default() };
    let record = play_game(rules, &mut UniformEvaluator, &config, 3);
    let mut solver = Solver::new();
    let solved: Vec<&PositionRecord> = record.positions.iter().filter(|r| r.exact_margin.is_some()).collect();
    assert!(solved.len() >= 8, "the last 10 empties are solved");
    for r in solved {
        assert!(64 - r.position.occupied().count() <= 10);
        let all = solver.solve(&rules, &r.position, Mode::AllMoves, Limits::default()).unwrap();
        let played = record.game.moves()[r.ply as usize];
        let value = all.move_scores.iter().find(|m| m.0 == played).unwrap().1;
        assert_eq!(value, all.score, "the played move is optimal");
    }
    // Perfect play from the first solved position keeps its exact value to the end, so every position's
    // target, exact or not, is the game's result.
    let first = record.positions.iter().find(|r| r.exact_margin.is_some()).unwrap();
    let exact = solver.solve(&rules, &first.position, Mode::Exact, Limits::default()).unwrap().score;
    assert_eq!(record.outcome().margin_for(first.position.side), exact);
    for (i, r) in record.positions.iter().enumerate() {
        assert_eq!(record.margin_target(i), record.outcome().margin_for(r.position.side));
    }
}

/// On a smaller board too, a solved position's policy target lies on the solver's best moves only, in the
/// policy's square order, and covers at least one of them.
#[test]
fn solved_policy_targets_are_the_solvers_best_moves_on_6x6() {
    let rules = Rules::othello().with_size(6).unwrap();
    let config = SelfPlayConfig { solve_empties: 10, sims: 16, ..SelfPlayConfig::default() };
    let mut solver = Solver::new();
    let mut checked = 0;
    for seed in 0..4 {
        let record = play_game(rules, &mut UniformEvaluator, &config, seed);
        for r in record.positions.iter().filter(|r| r.exact_margin.is_some()) {
            let all = solver.solve(&rules, &r.position, Mode::AllMoves, Limits::default()).unwrap();
            let best: Vec<usize> =
                all.move_scores.iter().filter(|m| m.1 == all.score).map(|m| m.0.policy_index()).collect();
            let targets: Vec<usize> = (0..POLICY_SIZE).filter(|&k| r.policy[k] > 0.0).collect();
            assert!(!targets.is_empty() && targets.iter().all(|k| best.contains(k)), "{targets:?} not in {best:?}");
            checked += 1;
        }
    }
    assert!(checked >= 20, "{checked} solved positions");
}

/// The search's value of the move played is the game's result where that move ends the game (the child is
/// terminal, its value exact), from the mover's side; near the end it predicts the result; solved positions
/// have none.
#[test]
fn search_values_are_the_movers_and_exact_at_the_last_move() {
    let rules = Rules::othello().with_size(6).unwrap();
    let config = SelfPlayConfig { solve_empties: 0, sims: 32, ..SelfPlayConfig::default() };
    let (mut last_moves, mut agree, mut late) = (0, 0.0, 0);
    for seed in 0..8 {
        let record = play_game(rules, &mut RolloutEvaluator::new(seed, 2), &config, seed);
        for (i, r) in record.positions.iter().enumerate() {
            let q = r.search_value.expect("every searched position has a search value");
            assert!((-1.0..=1.0).contains(&q));
            let played = record.game.moves()[r.ply as usize];
            let next = rules.play(&r.position, played).unwrap();
            if rules.status(&next) == Status::Over {
                assert_eq!(q, record.value_target(i), "seed {seed}, position {i}");
                last_moves += 1;
            } else if (rules.mask() & !r.position.occupied().0).count_ones() <= 6 {
                agree += q * record.value_target(i);
                late += 1;
            }
        }
    }
    assert!(last_moves >= 6, "{last_moves} game-ending moves");
    assert!(agree / late as f32 > 0.3, "search values near the end agree with the results: {}", agree / late as f32);
    let solving = SelfPlayConfig { solve_empties: 8, sims: 16, ..SelfPlayConfig::default() };
    let record = play_game(Rules::othello(), &mut UniformEvaluator, &solving, 1);
    for (i, r) in record.positions.iter().enumerate() {
        assert_eq!(r.search_value.is_none(), r.exact_margin.is_some());
        if r.exact_margin.is_some() {
            assert_eq!(record.search_value_target(i), record.value_target(i), "exact where solved");
        }
    }
}

/// Random moves inside solved endgames leave the game's result behind, and the targets stay exact: each solved
/// position's own perfect-play margin, and the first solved position's for those before it.
#[test]
fn exploring_solved_endgames_keeps_exact_targets() {
    let rules = Rules::othello();
    let config = SelfPlayConfig { solve_empties: 10, solved_exploration: 0.5, sims: 16, ..SelfPlayConfig::default() };
    let mut solver = Solver::new();
    let (mut blunders, mut results_moved) = (0, 0);
    for seed in 0..6 {
        let record = play_game(rules, &mut UniformEvaluator, &config, seed);
        let first = record.positions.iter().position(|r| r.exact_margin.is_some()).unwrap();
        for (i, r) in record.positions.iter().enumerate() {
            if i >= first && r.exact_margin.is_none() {
                panic!("seed {seed}: position {i} after the first solved one is not solved");
            }
            let Some(margin) = r.exact_margin else { continue };
            let all = solver.solve(&rules, &r.position, Mode::AllMoves, Limits::default()).unwrap();
            assert_eq!(margin, all.score);
            assert_eq!(record.margin_target(i), all.score);
            assert_eq!(record.value_target(i), all.score.signum() as f32);
            for (m, score) in &all.move_scores {
                let p = r.policy[m.policy_index()];
                assert_eq!(p > 0.0, *score == all.score, "seed {seed}: the policy target is the best moves");
            }
            let played = record.game.moves()[r.ply as usize];
            blunders += (all.move_scores.iter().find(|m| m.0 == played).unwrap().1 < all.score) as u32;
        }
        let exact = record.positions[first].exact_margin.unwrap();
        for (i, r) in record.positions[..first].iter().enumerate() {
            let expected = if r.position.side == record.positions[first].position.side { exact } else { -exact };
            assert_eq!(record.margin_target(i), expected);
        }
        results_moved += (record.outcome().margin_for(record.positions[first].position.side) != exact) as u32;
    }
    assert!(blunders > 5, "random moves in solved positions: {blunders} lost value");
    assert!(results_moved > 0, "some games end elsewhere than perfect play would");
}
