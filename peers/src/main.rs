//! Random full games per second on one core: rust_reversi_core (the fastest Rust engine on crates.io) next to
//! othello-core, in the same process. Usage: `cargo run --release --manifest-path peers/Cargo.toml [GAMES]`.

use std::time::Instant;

fn main() {
    let games: u64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(200_000);

    // rust_reversi_core's own random playout loop (as in its MCTS play_out).
    let t = Instant::now();
    let mut black_wins = 0u64;
    for _ in 0..games {
        let mut board = rust_reversi_core::board::Board::new();
        while !board.is_game_over() {
            if board.is_pass() {
                board.do_pass().unwrap();
            } else {
                let m = board.get_random_move().unwrap();
                board.do_move(m).unwrap();
            }
        }
        black_wins += board.is_black_win().unwrap() as u64;
    }
    let secs = t.elapsed().as_secs_f64();
    println!(
        "rust_reversi_core 1.0.2: {games} games in {secs:.3} s = {:.0} games/s (black wins {:.1}%)",
        games as f64 / secs,
        100.0 * black_wins as f64 / games as f64
    );

    let rules = othello_core::Rules::othello();
    let start = rules.start_position();
    for kind in othello_core::KernelKind::available() {
        let t = Instant::now();
        let stats = othello_core::playout::random_games_with(kind, start.player.0, start.opponent.0, !0, games, 1);
        let secs = t.elapsed().as_secs_f64();
        println!(
            "othello-core {kind}: {games} games in {secs:.3} s = {:.0} games/s (black wins {:.1}%)",
            games as f64 / secs,
            100.0 * stats.wins as f64 / games as f64
        );
    }
}
