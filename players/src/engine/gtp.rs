//! The GTP side of the engine client: the game told move by move (`play`), the engine's board kept in step, then
//! `genmove`. A forced pass is told as `play COLOUR pass`; an engine that refuses that (GRhino and other Othello
//! engines pass for the side without moves themselves) hears of no pass again, only the moves.

use othello_core::{Color, Game, Move};

use super::clock::MoveClock;
use super::process::{Fault, ENGINE_TEXT};
use super::{clip, parse_move, EngineAgent};

/// How long the empty line that ends a reply may come after the reply's line (an engine writes them together).
const REPLY_END_WAIT: std::time::Duration = std::time::Duration::from_secs(1);

/// A GTP reply: the text after `=`, or the text after `?` (the engine refused the command).
pub(super) enum Reply {
    Done(String),
    Refused(String),
}

impl EngineAgent {
    /// A GTP command's reply; a malformed one is a fault.
    fn gtp(&mut self, command: &str, clock: &mut MoveClock) -> Result<Reply, Fault> {
        let process = self.process()?;
        process.send(command)?;
        loop {
            let line = process.receive(clock)?;
            let line = line.trim();
            if line.is_empty() {
                continue;
            }
            let reply = if let Some(rest) = line.strip_prefix('=') {
                Reply::Done(rest.trim_start_matches(|c: char| c.is_ascii_digit()).trim().to_string())
            } else if let Some(rest) = line.strip_prefix('?') {
                Reply::Refused(rest.trim_start_matches(|c: char| c.is_ascii_digit()).trim().to_string())
            } else {
                // No empty line is waited for: what follows a malformed reply is not a reply either.
                return Err(Fault::new(format!("malformed reply to '{command}': '{}'", clip(line, ENGINE_TEXT))));
            };
            // The empty line that ends every reply comes with it: an engine that leaves it out would otherwise be
            // waited for until its time is up, move after move.
            match process.receive_within(REPLY_END_WAIT)? {
                Some(end) if end.trim().is_empty() => return Ok(reply),
                other => {
                    return Err(Fault::new(format!(
                        "its reply to '{command}' ('{}') is not ended by an empty line, as GTP requires{}",
                        clip(line, ENGINE_TEXT),
                        other.map_or(String::new(), |next| format!(": '{}' came next", clip(&next, ENGINE_TEXT)))
                    )))
                }
            }
        }
    }

    /// A command the engine must carry out: a refusal is a fault.
    fn gtp_done(&mut self, command: &str, clock: &mut MoveClock) -> Result<String, Fault> {
        match self.gtp(command, clock)? {
            Reply::Done(text) => Ok(text),
            Reply::Refused(why) => Err(Fault::new(format!("refused '{command}': {}", clip(&why, ENGINE_TEXT)))),
        }
    }

    pub(super) fn gtp_move(&mut self, game: &Game, clock: &mut MoveClock) -> Result<Move, Fault> {
        let history = game.moves();
        if self.told.is_empty() || !history.starts_with(&self.told) {
            self.gtp_done(&format!("boardsize {}", game.rules.size), clock)?;
            self.gtp_done("clear_board", clock)?;
            if let Some(total) = self.limits.game_time {
                // The clock, where the engine keeps one (a refusal is no fault: the limit holds anyway).
                self.gtp(&format!("time_settings {} 0 0", total.as_secs()), clock)?;
            }
            self.told.clear();
        }
        let mut replay = Game::new(game.rules);
        replay.play_all(&self.told).map_err(|e| Fault::new(e.to_string()))?;
        for &mv in &history[self.told.len()..] {
            let colour = color_name(replay.position().side);
            match mv {
                Move::Pass if self.passes_implicit => {}
                Move::Pass => {
                    if let Reply::Refused(_) = self.gtp(&format!("play {colour} pass"), clock)? {
                        self.passes_implicit = true;
                        self.note("refused a pass: told the moves without passes from now on");
                    }
                }
                Move::Play(sq) => {
                    self.gtp_done(&format!("play {colour} {sq}"), clock)?;
                }
            }
            replay.push(mv).map_err(|e| Fault::new(e.to_string()))?;
        }
        self.told = history.to_vec();
        let colour = color_name(game.position().side);
        if let Some(left) = self.time_left() {
            self.gtp(&format!("time_left {colour} {} 0", left.as_secs()), clock)?;
        }
        let reply = self.gtp_done(&format!("genmove {colour}"), clock)?;
        if reply.eq_ignore_ascii_case("resign") {
            return Err(Fault::new("resigned"));
        }
        let mv =
            parse_move(&reply).ok_or_else(|| Fault::new(format!("malformed move '{}'", clip(&reply, ENGINE_TEXT))))?;
        // The engine has played it on its board.
        self.told.push(mv);
        Ok(mv)
    }
}

fn color_name(color: Color) -> &'static str {
    match color {
        Color::Black => "b",
        Color::White => "w",
    }
}
