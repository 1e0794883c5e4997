//! Any agent as an NBoard engine (protocol version 2, as NBoard and Edax speak it): the GUI sends the game with
//! `set game`, moves with `move`, and asks for a move with `go`. Every line is untrusted: one that does not parse
//! is answered by a `status` line naming the problem, and the session goes on. A game record's time control
//! (`TI[15:00]`) becomes the agent's clock, less the time its own moves have taken.

use std::time::{Duration, Instant};

use othello_core::ggf::parse_ggf;
use othello_core::{Game, Move, Rules};

use crate::agent::Agent;
use crate::engine::parse_move;
use crate::serve::LineSession;
use crate::thinking_time::Clock;

/// One engine session: the agent and the game the GUI has set up.
pub struct NboardSession<A> {
    agent: A,
    game: Game,
    /// The game's time a player (its record's `TI`), and what the agent's moves have taken of it.
    clock: Option<(Duration, Duration)>,
    pub finished: bool,
}

/// A GGF time control's main time (`TI[15:00]`, `TI[15:00//02:00]`: seconds, minutes:seconds or
/// hours:minutes:seconds before any `/`).
fn ggf_time(text: &str) -> Option<Duration> {
    let main = text.split('/').next()?.trim();
    let mut seconds = 0.0;
    for part in main.split(':') {
        seconds = seconds * 60.0 + part.trim().parse::<f64>().ok().filter(|s| s.is_finite() && *s >= 0.0)?;
    }
    (seconds > 0.0 && seconds <= 86_400.0).then(|| Duration::from_secs_f64(seconds))
}

/// How much of what the GUI sent a reply quotes.
const GUI_TEXT: usize = 40;

/// At most `GUI_TEXT` characters of `text`.
fn clip(text: &str) -> String {
    crate::engine::clip(text, GUI_TEXT)
}

fn move_text(mv: Move) -> String {
    match mv {
        Move::Play(sq) => sq.to_string().to_ascii_uppercase(),
        Move::Pass => "PA".into(),
    }
}

impl<A: Agent> NboardSession<A> {
    /// A session on the agent's own rules where it has them (a network's), else Othello.
    pub fn new(agent: A) -> NboardSession<A> {
        let rules = agent.rules().unwrap_or(Rules::othello());
        NboardSession { agent, game: Game::new(rules), clock: None, finished: false }
    }

    pub fn game(&self) -> &Game {
        &self.game
    }

    /// The replies to one line from the GUI (none for most commands).
    pub fn handle(&mut self, line: &str) -> Vec<String> {
        let line = line.trim();
        let (command, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        let rest = rest.trim();
        let problem = |message: String| vec![format!("status error: {message}")];
        match command {
            "nboard" => vec![format!("set myname {}", self.agent.name())],
            "set" => {
                let (key, value) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
                match key {
                    "game" => match parse_ggf(value).into_iter().next() {
                        Some(Ok(record)) => match record.replay() {
                            Ok(game) => match self.agent.check_rules(&game.rules) {
                                Ok(()) => {
                                    self.game = game;
                                    self.clock = record.property("TI").and_then(ggf_time).map(|t| (t, Duration::ZERO));
                                    vec![]
                                }
                                Err(e) => problem(format!("set game: {e}")),
                            },
                            Err(e) => problem(format!("set game: {e}")),
                        },
                        Some(Err(e)) => problem(format!("set game: {e}")),
                        None => problem("set game: no game record".into()),
                    },
                    // Depth and contempt do not change how these agents play, but a GUI sending a bad one hears of it.
                    "depth" => match value.trim().parse::<u32>() {
                        Ok(1..=60) => vec![],
                        _ => problem(format!("set depth: '{}' is not a depth from 1 to 60", clip(value))),
                    },
                    "contempt" => match value.trim().parse::<i64>() {
                        Ok(_) => vec![],
                        Err(_) => problem(format!("set contempt: '{}' is not a whole number", clip(value))),
                    },
                    _ => vec![],
                }
            }
            "move" => {
                let word = rest.split('/').next().unwrap_or("");
                match parse_move(word) {
                    Some(mv) => match self.game.push(mv) {
                        Ok(()) => vec![],
                        Err(e) => problem(format!("move {}: {e}", clip(word))),
                    },
                    None => problem(format!("move: '{}' is not a move", clip(word))),
                }
            }
            "go" | "hint" => {
                // `hint N` asks for the N best moves; this engine gives its one move for any N of at least 1.
                if command == "hint" && !matches!(rest.parse::<u32>(), Ok(1..)) {
                    return problem(format!("hint: '{}' is not a number of moves, 1 or more", clip(rest)));
                }
                if self.game.is_over() {
                    return problem("the game is over".into());
                }
                if let (Some((total, used)), "go") = (self.clock, command) {
                    self.agent.set_clock(Clock { left: total.saturating_sub(used), moves: None });
                }
                let started = Instant::now();
                let chosen = self.agent.select_move(&self.game);
                // A hint is the GUI's analysis, not a move on the agent's clock.
                if let (Some((_, used)), "go") = (&mut self.clock, command) {
                    *used += started.elapsed();
                }
                match chosen {
                    Ok(mv) if command == "go" => vec![format!("=== {}", move_text(mv))],
                    Ok(mv) => vec![format!("search {} 0.00 0 0", move_text(mv)), "status".into()],
                    Err(e) => problem(e.to_string()),
                }
            }
            "ping" => vec![format!("pong {}", clip(rest))],
            "learn" => vec!["learned".into()],
            "quit" => {
                self.finished = true;
                vec![]
            }
            // The protocol has engines ignore what they do not know.
            _ => vec![],
        }
    }
}

impl<A: Agent> LineSession for NboardSession<A> {
    fn replies(&mut self, line: &str) -> String {
        self.handle(line).into_iter().map(|reply| reply + "\n").collect()
    }
    fn unreadable(&mut self, problem: &str) -> String {
        format!("status error: {problem}\n")
    }
    fn finished(&self) -> bool {
        self.finished
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::GreedyAgent;

    #[test]
    fn a_session_follows_the_gui_and_answers_go_with_a_legal_move() {
        let mut s = NboardSession::new(GreedyAgent::new(1));
        assert_eq!(s.handle("nboard 2"), ["set myname greedy"]);
        assert!(s.handle("set depth 12").is_empty());
        let record = "(;GM[Othello]PC[NBoard]PB[a]PW[b]RE[?]TI[5:00]TY[8]\
                      BO[8 ---------------------------O*------*O--------------------------- *]B[F5]W[F6];)";
        assert!(s.handle(&format!("set game {record}")).is_empty());
        assert_eq!(s.game().moves().len(), 2);
        assert!(s.handle("move E6/1.00/0.5").is_empty());
        let reply = s.handle("go");
        let mv = parse_move(reply[0].strip_prefix("=== ").unwrap()).unwrap();
        assert!(s.game().clone().push(mv).is_ok(), "{reply:?}");
        assert_eq!(s.game().moves().len(), 3, "go does not play the move");
        assert_eq!(s.handle("ping 7"), ["pong 7"]);
        assert_eq!(s.handle("learn"), ["learned"]);
        assert!(s.handle("hint 1")[0].starts_with("search "));
    }

    /// A record's `TI` is the agent's clock, less its own moves' time; a hint takes nothing from it.
    #[test]
    fn the_records_time_control_is_the_agents_clock() {
        use crate::gtp::tests::Timed;
        assert_eq!(ggf_time("15:00//02:00"), Some(Duration::from_secs(900)));
        assert_eq!(ggf_time("1:00:30"), Some(Duration::from_secs(3630)));
        assert_eq!(ggf_time("90"), Some(Duration::from_secs(90)));
        for bad in ["", "x", "-5:00", "0:00", "5::", "1e9"] {
            assert_eq!(ggf_time(bad), None, "{bad}");
        }
        let mut s = NboardSession::new(Timed(GreedyAgent::new(1), vec![]));
        let start = "BO[8 ---------------------------O*------*O--------------------------- *]";
        s.handle(&format!("set game (;GM[Othello]TY[8]{start};)"));
        s.handle("go");
        assert!(s.agent.1.is_empty(), "no clock without TI");
        s.handle(&format!("set game (;GM[Othello]TI[5:00]TY[8]{start};)"));
        s.handle("hint 1");
        s.handle("go");
        s.handle("go");
        let clocks = &s.agent.1;
        assert_eq!(clocks.len(), 2, "{clocks:?}");
        assert_eq!(clocks[0].left, Duration::from_secs(300));
        assert!(clocks[1].left < clocks[0].left && clocks[1].moves.is_none(), "{clocks:?}");
    }

    #[test]
    fn bad_lines_get_a_status_and_leave_the_game_alone() {
        let mut s = NboardSession::new(GreedyAgent::new(1));
        let huge = format!("move {}", "Z".repeat(20_000_000));
        let lines = ["move Z9", "move A1", "set game (;GM[Othello]BO[8 ***];)", "set game", "set depth x"];
        let more = ["set depth -1", "set depth 0", "set depth 61", "set contempt x", "hint -1", "hint abc", "hint"];
        for line in lines.into_iter().chain(more).chain([huge.as_str()]) {
            let reply = s.handle(line);
            assert!(reply.len() == 1 && reply[0].starts_with("status error"), "{}: {reply:?}", clip(line));
            assert!(reply[0].len() < 200, "the reply is short: {}", reply[0].len());
            assert!(s.game().moves().is_empty(), "{}", clip(line));
        }
        assert!(s.handle("frobnicate 3").is_empty());
        assert!(s.handle("set depth 60").is_empty() && s.handle("set contempt -3").is_empty());
    }
}
