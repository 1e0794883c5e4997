//! The properties the protocol fuzz targets (`fuzz/`) check: whatever bytes arrive, a session answers without
//! panicking, GTP replies are well framed, and the game stays one that replays.

use crate::gtp::GtpSession;
use crate::nboard::NboardSession;
use crate::RandomAgent;

/// Lines to an NBoard session: no panic; the game after them replays from its moves.
pub fn nboard_lines(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let mut session = NboardSession::new(RandomAgent::new(1));
    for line in text.lines() {
        for reply in session.handle(line) {
            assert!(!reply.contains('\n'), "one reply per line: {reply:?}");
        }
    }
    let game = session.game();
    othello_core::Game::replay(game.rules, game.moves()).expect("the session's game replays");
}

/// Lines to a GTP session: every reply is `=` or `?` and ends with an empty line.
pub fn gtp_lines(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let mut session = GtpSession::new(RandomAgent::new(1));
    for line in text.lines() {
        if let Some(reply) = session.handle(line) {
            assert!(reply.starts_with('=') || reply.starts_with('?'), "{line:?} -> {reply:?}");
            assert!(reply.ends_with("\n\n") && !reply[..reply.len() - 2].contains("\n\n"), "{line:?} -> {reply:?}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// Random lines built from the protocols' own words, numbers, moves and junk: the fuzz targets' properties
    /// on a few thousand inputs in the ordinary test run.
    #[test]
    fn protocol_sessions_survive_random_lines() {
        let words = [
            "nboard",
            "set",
            "game",
            "depth",
            "contempt",
            "move",
            "go",
            "hint",
            "ping",
            "learn",
            "quit",
            "genmove",
            "play",
            "boardsize",
            "clear_board",
            "undo",
            "showboard",
            "known_command",
            "b",
            "w",
            "white",
            "pass",
            "PA",
            "d3",
            "F5",
            "c4",
            "a1",
            "h8",
            "6",
            "8",
            "-1",
            "99999999999",
            "/",
            "//1.5/",
            "(;GM[Othello]",
            "BO[8",
            "B[F5]",
            ";)",
            "]",
            "#",
            "\u{fffd}",
            "",
        ];
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(5);
        for _ in 0..3000 {
            let mut text = String::new();
            for _ in 0..rng.random_range(1..12) {
                let n = rng.random_range(0..6);
                let line: Vec<&str> = (0..n).map(|_| words[rng.random_range(0..words.len())]).collect();
                let sep = if rng.random_bool(0.5) { " " } else { "" };
                text.push_str(&line.join(sep));
                text.push('\n');
            }
            nboard_lines(text.as_bytes());
            gtp_lines(text.as_bytes());
        }
    }
}
