//! Any agent as a GTP engine for Othello, with Edax's commands: `boardsize`, `clear_board`, `play`, `genmove`,
//! `undo`, `showboard`, the clock's `time_settings` and `time_left` (handed to the agent before each of its moves)
//! and the administrative ones. Every line is untrusted: one that does not parse gets a `?` reply naming the
//! problem, and the session goes on.

use std::time::{Duration, Instant};

use othello_core::{Bitboard, Color, Game, Move, Rules, Status};

use crate::agent::Agent;
use crate::engine::parse_move;
use crate::serve::LineSession;
use crate::thinking_time::Clock;

const COMMANDS: [&str; 15] = [
    "protocol_version",
    "name",
    "version",
    "known_command",
    "list_commands",
    "quit",
    "boardsize",
    "clear_board",
    "komi",
    "play",
    "genmove",
    "undo",
    "showboard",
    "time_settings",
    "time_left",
];

/// One engine session: the agent and the game on the engine's board.
pub struct GtpSession<A> {
    agent: A,
    game: Game,
    /// Each colour's clock (black's first), as `time_settings` started it and `time_left` last set it, less the
    /// time its moves took since; None without a time limit.
    clocks: [Option<Clock>; 2],
    /// The clock a new game starts with.
    start_clock: Option<Clock>,
    pub finished: bool,
}

/// The most seconds a clock may be given: a year.
const MAX_CLOCK_SECONDS: f64 = 365.0 * 86_400.0;

impl<A: Agent> GtpSession<A> {
    /// A session on the agent's own rules where it has them (a network's), else Othello.
    pub fn new(agent: A) -> GtpSession<A> {
        let rules = agent.rules().unwrap_or(Rules::othello());
        GtpSession { agent, game: Game::new(rules), clocks: [None; 2], start_clock: None, finished: false }
    }

    pub fn game(&self) -> &Game {
        &self.game
    }

    /// The reply to one line (`=[id] result` or `?[id] message`, ending with an empty line), or nothing for an
    /// empty line or a comment.
    pub fn handle(&mut self, line: &str) -> Option<String> {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            return None;
        }
        let (id, command) = match line.find(|c: char| !c.is_ascii_digit()) {
            Some(0) => ("", line),
            Some(i) => (&line[..i], line[i..].trim()),
            None => (line, ""),
        };
        let mut words = command.split_whitespace();
        let name = words.next().unwrap_or("");
        let args: Vec<&str> = words.collect();
        Some(match self.command(name, &args) {
            Ok(text) => format!("={id} {text}\n\n"),
            Err(message) => format!("?{id} {message}\n\n"),
        })
    }

    fn command(&mut self, name: &str, args: &[&str]) -> Result<String, String> {
        let colour = |word: Option<&&str>| match word.map(|w| w.to_ascii_lowercase()).as_deref() {
            Some("b" | "black") => Ok(Color::Black),
            Some("w" | "white") => Ok(Color::White),
            Some(other) => Err(format!("invalid color '{other}'")),
            None => Err("missing color".to_string()),
        };
        match name {
            "protocol_version" => Ok("2".into()),
            "name" => Ok("othello-zero".into()),
            "version" => Ok(format!("{} {}", env!("CARGO_PKG_VERSION"), self.agent.name())),
            "known_command" => Ok(COMMANDS.contains(args.first().unwrap_or(&"")).to_string()),
            "list_commands" => Ok(COMMANDS.join("\n")),
            "quit" => {
                self.finished = true;
                Ok(String::new())
            }
            "boardsize" => {
                let size = args.first().and_then(|s| s.parse::<u8>().ok()).ok_or("boardsize needs a number")?;
                let rules = self.game.rules.with_size(size).map_err(|_| "unacceptable size".to_string())?;
                self.agent.check_rules(&rules).map_err(|e| format!("unacceptable size: {e}"))?;
                self.game = Game::new(rules);
                self.clocks = [self.start_clock; 2];
                Ok(String::new())
            }
            "clear_board" => {
                self.game = Game::new(self.game.rules);
                self.clocks = [self.start_clock; 2];
                Ok(String::new())
            }
            "komi" => Ok(String::new()),
            "time_settings" => {
                let (main, period, stones) = match args {
                    [main, period, stones] => (seconds(main)?, seconds(period)?, count(stones)?),
                    _ => return Err("time_settings needs main time, byo-yomi time and byo-yomi stones".into()),
                };
                let duration = Duration::from_secs_f64;
                // GTP: byo-yomi time without stones means no limit at all.
                self.start_clock = if period > 0.0 && stones == 0 {
                    None
                } else if main > 0.0 {
                    Some(Clock { left: duration(main), moves: None })
                } else if period > 0.0 {
                    Some(Clock { left: duration(period), moves: Some(stones) })
                } else {
                    // No time at all: a move as fast as the agent can make it.
                    Some(Clock { left: Duration::ZERO, moves: None })
                };
                self.clocks = [self.start_clock; 2];
                Ok(String::new())
            }
            "time_left" => {
                let colour = colour(args.first())?;
                let (left, stones) = match args {
                    [_, left, stones] => (seconds(left)?, count(stones)?),
                    _ => return Err("time_left needs a color, the time left and the stones left".into()),
                };
                let moves = (stones > 0).then_some(stones);
                self.clocks[colour as usize] = Some(Clock { left: Duration::from_secs_f64(left), moves });
                Ok(String::new())
            }
            "play" => {
                let colour = colour(args.first())?;
                let mv = args.get(1).and_then(|w| parse_move(w)).ok_or("invalid coordinate")?;
                self.pass_if_forced(colour);
                if self.game.position().side != colour {
                    return Err("illegal move: not this colour's turn".into());
                }
                self.game.push(mv).map_err(|_| "illegal move".to_string())?;
                Ok(String::new())
            }
            "genmove" => {
                let colour = colour(args.first())?;
                self.pass_if_forced(colour);
                if self.game.is_over() {
                    return Ok("pass".into());
                }
                if self.game.position().side != colour {
                    return Err("not this colour's turn".into());
                }
                let clock = self.clocks[colour as usize];
                if let Some(clock) = clock {
                    self.agent.set_clock(clock);
                }
                let started = Instant::now();
                let mv = self.agent.select_move(&self.game).map_err(|e| e.to_string())?;
                self.clocks[colour as usize] = clock.map(|c| c.after(started.elapsed()));
                self.game.push(mv).map_err(|e| format!("the agent chose an illegal move: {e}"))?;
                Ok(match mv {
                    Move::Play(sq) => sq.to_string(),
                    Move::Pass => "pass".into(),
                })
            }
            "undo" => {
                let moves = self.game.moves();
                let last = moves.len().checked_sub(1).ok_or("cannot undo")?;
                self.game = Game::replay(self.game.rules, &moves[..last]).map_err(|e| e.to_string())?;
                Ok(String::new())
            }
            "showboard" => Ok(format!("\n{}", self.game.position().pretty(self.game.rules.size, Bitboard(0)))),
            _ => Err("unknown command".into()),
        }
    }

    /// Front ends may skip a forced pass: the other colour moving next implies it.
    fn pass_if_forced(&mut self, colour: Color) {
        if self.game.position().side != colour && self.game.status() == Status::MustPass {
            let _ = self.game.push(Move::Pass);
        }
    }
}

/// A time in seconds as a GTP controller sends it.
fn seconds(word: &str) -> Result<f64, String> {
    match word.parse::<f64>() {
        Ok(s) if (0.0..=MAX_CLOCK_SECONDS).contains(&s) => Ok(s),
        _ => Err(format!("'{}' is not a time in seconds from 0 to a year", crate::engine::clip(word, 20))),
    }
}

/// A number of stones (moves) as a GTP controller sends it.
fn count(word: &str) -> Result<u32, String> {
    word.parse::<u32>().map_err(|_| format!("'{}' is not a number of stones", crate::engine::clip(word, 20)))
}

impl<A: Agent> LineSession for GtpSession<A> {
    fn replies(&mut self, line: &str) -> String {
        self.handle(line).unwrap_or_default()
    }
    fn unreadable(&mut self, problem: &str) -> String {
        format!("? {problem}\n\n")
    }
    fn finished(&self) -> bool {
        self.finished
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::GreedyAgent;

    #[test]
    fn a_session_plays_and_generates_moves_with_ids() {
        let mut s = GtpSession::new(GreedyAgent::new(3));
        assert_eq!(s.handle("1 protocol_version").unwrap(), "=1 2\n\n");
        assert_eq!(s.handle("# a comment"), None);
        assert_eq!(s.handle("boardsize 8").unwrap(), "= \n\n");
        assert_eq!(s.handle("play B d3").unwrap(), "= \n\n");
        let reply = s.handle("7 genmove white").unwrap();
        let word = reply.strip_prefix("=7 ").unwrap().trim();
        assert_eq!(s.game().moves().len(), 2, "genmove plays the move");
        assert_eq!(s.game().moves()[1], parse_move(word).unwrap());
        assert_eq!(s.handle("undo").unwrap(), "= \n\n");
        assert_eq!(s.game().moves().len(), 1);
        assert_eq!(s.handle("known_command genmove").unwrap(), "= true\n\n");
        assert_eq!(s.handle("boardsize 6").unwrap(), "= \n\n");
        assert_eq!(s.game().rules.size, 6);
    }

    /// Greedy play bound to 4x4 Othello, as a network trained on it is.
    struct FourByFour(GreedyAgent);

    impl Agent for FourByFour {
        fn name(&self) -> String {
            "four".into()
        }
        fn select_move(&mut self, game: &Game) -> Result<Move, crate::AgentError> {
            self.check_rules(&game.rules)?;
            self.0.select_move(game)
        }
        fn rules(&self) -> Option<Rules> {
            Some(Rules::othello().with_size(4).unwrap())
        }
    }

    #[test]
    fn an_agent_bound_to_its_rules_starts_on_them_and_refuses_another_board() {
        let mut s = GtpSession::new(FourByFour(GreedyAgent::new(1)));
        assert_eq!(s.game().rules.size, 4);
        let reply = s.handle("boardsize 8").unwrap();
        assert!(reply.starts_with("? unacceptable size: four plays only othello,4x4"), "{reply}");
        assert_eq!(s.game().rules.size, 4);
        assert!(s.handle("genmove b").unwrap().starts_with("= "));
        let mut n = crate::nboard::NboardSession::new(FourByFour(GreedyAgent::new(1)));
        let eight = "(;GM[Othello]TY[8]BO[8 ---------------------------O*------*O--------------------------- *];)";
        assert!(n.handle(&format!("set game {eight}"))[0].contains("plays only othello,4x4"));
    }

    #[test]
    fn a_line_that_is_not_utf8_is_answered_and_the_session_goes_on() {
        let input = b"1 play b d3\n2 play w \xff\xfe\n3 genmove w\n".to_vec();
        let mut output = Vec::new();
        crate::serve::serve(GtpSession::new(GreedyAgent::new(3)), std::io::Cursor::new(input), &mut output).unwrap();
        let replies: Vec<&str> = std::str::from_utf8(&output).unwrap().split("\n\n").collect();
        assert_eq!(replies[0], "=1 ");
        assert!(replies[1].starts_with("? line is not UTF-8"), "{replies:?}");
        assert!(replies[2].starts_with("=3 ") && parse_move(&replies[2][3..]).is_some(), "{replies:?}");
    }

    /// Greedy play that keeps the clocks it is given.
    pub(crate) struct Timed(pub GreedyAgent, pub Vec<Clock>);

    impl Agent for Timed {
        fn name(&self) -> String {
            "timed".into()
        }
        fn select_move(&mut self, game: &Game) -> Result<Move, crate::AgentError> {
            self.0.select_move(game)
        }
        fn set_clock(&mut self, clock: Clock) {
            self.1.push(clock)
        }
    }

    /// GTP 2's time commands (section 6.3.4): absolute time, Canadian byo-yomi, no limit, and `time_left`.
    #[test]
    fn the_controllers_clock_reaches_the_agent_before_each_move() {
        let secs = Duration::from_secs_f64;
        let mut s = GtpSession::new(Timed(GreedyAgent::new(3), vec![]));
        s.handle("genmove b");
        assert!(s.agent.1.is_empty(), "no clock without time_settings");
        s.handle("clear_board");
        assert_eq!(s.handle("time_settings 300 0 0").unwrap(), "= \n\n");
        s.handle("genmove b");
        assert_eq!(s.agent.1.pop(), Some(Clock { left: secs(300.0), moves: None }));
        // Without time_left the session counts down itself.
        s.handle("genmove w");
        s.handle("genmove b");
        let counted = s.agent.1.pop().unwrap();
        assert!(counted.left < secs(300.0) && counted.left > secs(299.0), "{counted:?}");
        assert_eq!(s.handle("time_left w 12.5 3").unwrap(), "= \n\n");
        s.handle("genmove w");
        assert_eq!(s.agent.1.pop(), Some(Clock { left: secs(12.5), moves: Some(3) }));
        // A new game starts on the settings' clock; byo-yomi alone is its time for its stones.
        s.handle("time_settings 0 30 10");
        s.handle("clear_board");
        s.handle("genmove b");
        assert_eq!(s.agent.1.pop(), Some(Clock { left: secs(30.0), moves: Some(10) }));
        // Byo-yomi time without stones: no limit.
        s.handle("time_settings 0 30 0");
        s.agent.1.clear();
        s.handle("genmove w");
        assert!(s.agent.1.is_empty());
        for line in ["time_settings 1 2", "time_settings -1 0 0", "time_settings 1e30 0 0", "time_left b x 0"] {
            let reply = s.handle(line).unwrap();
            assert!(reply.starts_with('?'), "{line}: {reply}");
        }
        for line in ["time_left q 1 0", "time_left b 1 -2", "time_settings 5 0 x", "time_left b nan 0"] {
            assert!(s.handle(line).unwrap().starts_with('?'), "{line}");
        }
    }

    #[test]
    fn bad_lines_get_an_error_reply_and_leave_the_game_alone() {
        let mut s = GtpSession::new(GreedyAgent::new(3));
        for line in ["play b a1", "play x d3", "play b", "play w d3", "boardsize 9", "boardsize", "undo", "frob", "3"] {
            let reply = s.handle(line).unwrap();
            assert!(reply.starts_with('?') && reply.ends_with("\n\n"), "{line}: {reply:?}");
            assert!(s.game().moves().is_empty(), "{line}");
        }
    }
}
