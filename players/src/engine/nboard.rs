//! The NBoard side of the engine client: the whole game set (`set game` with its GGF record) and synchronised
//! with `ping`, then `go`; of what the engine prints (status, node counts, search lines), only the `===` move
//! counts.

use othello_core::ggf::GgfGame;
use othello_core::{Game, Move};

use super::clock::MoveClock;
use super::process::{Fault, ENGINE_TEXT};
use super::{clip, parse_move, EngineAgent};

impl EngineAgent {
    /// What a fresh NBoard engine is told once.
    pub(super) fn nboard_start(&mut self) -> Result<(), Fault> {
        let depth = self.nboard_depth;
        let process = self.process()?;
        process.send("nboard 2")?;
        process.send(&format!("set depth {depth}"))
    }

    pub(super) fn nboard_move(&mut self, game: &Game, clock: &mut MoveClock) -> Result<Move, Fault> {
        let record = GgfGame::from_game(game, "?", "?").to_ggf();
        self.pings += 1;
        let ping = self.pings;
        let process = self.process()?;
        process.send(&format!("set game {record}"))?;
        process.send(&format!("ping {ping}"))?;
        // Replies before the pong belong to earlier commands.
        loop {
            let line = process.receive(clock)?;
            if line.trim() == format!("pong {ping}") {
                break;
            }
        }
        process.send("go")?;
        loop {
            let line = process.receive(clock)?;
            let Some(rest) = line.trim().strip_prefix("===") else { continue };
            // `=== F5/1.5/0.2` (the protocol) or `=== f5 1.50 0.2` (Edax).
            let word = rest.trim().split(['/', ' ']).next().unwrap_or("");
            return parse_move(word)
                .ok_or_else(|| Fault::new(format!("malformed move '{}'", clip(line.trim(), ENGINE_TEXT))));
        }
    }
}
