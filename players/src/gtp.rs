//! Any agent as a GTP engine for Othello, with Edax's commands: `boardsize`, `clear_board`, `play`, `genmove`,
//! `undo`, `showboard` and the administrative ones. Every line is untrusted: one that does not parse gets a `?`
//! reply naming the problem, and the session goes on.

use othello_core::{Bitboard, Color, Game, Move, Rules, Status};

use crate::agent::Agent;
use crate::engine::parse_move;
use crate::serve::LineSession;

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
    pub finished: bool,
}

impl<A: Agent> GtpSession<A> {
    /// A session on the agent's own rules where it has them (a network's), else Othello.
    pub fn new(agent: A) -> GtpSession<A> {
        let rules = agent.rules().unwrap_or(Rules::othello());
        GtpSession { agent, game: Game::new(rules), finished: false }
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
                Ok(String::new())
            }
            "clear_board" => {
                self.game = Game::new(self.game.rules);
                Ok(String::new())
            }
            "komi" | "time_settings" | "time_left" => Ok(String::new()),
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
                let mv = self.agent.select_move(&self.game).map_err(|e| e.to_string())?;
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
mod tests {
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
