//! An external program as a player (`engine:cmd="...",protocol=nboard|gtp`): spoken to over its standard input
//! and output, one process per game, started at its first move. Whatever it does wrong (no reply within its time,
//! a reply that does not parse, a closed pipe, an illegal move, a flood of output) is an error the arena records
//! as a forfeit.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use othello_core::ggf::GgfGame;
use othello_core::{Color, Game, Move};

use crate::agent::{Agent, AgentError};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    Nboard,
    Gtp,
}

impl Protocol {
    /// The name a spec's `protocol=` gives.
    pub fn name(self) -> &'static str {
        match self {
            Protocol::Nboard => "nboard",
            Protocol::Gtp => "gtp",
        }
    }
}

/// The time for a move when the spec gives none (`time=`).
pub const DEFAULT_MOVE_TIME: Duration = Duration::from_secs(10);
/// The time the engine may take to start (load its tables, say) when the spec gives none (`startup=`): added to
/// its first move's time.
pub const DEFAULT_STARTUP_TIME: Duration = Duration::from_secs(20);
/// The longest line an engine may print; a longer one is an error, so that an engine without newlines cannot
/// fill the memory.
const MAX_LINE_BYTES: usize = 64 * 1024;
/// The most lines an engine may print for one move (an NBoard engine's status and search lines included).
const MAX_LINES_PER_MOVE: u32 = 100_000;
/// Lines read ahead of the arena: the reader waits past this, so that a flooding engine is held back.
const LINES_BUFFERED: usize = 1024;
/// How much of an engine's text a forfeit's reason quotes.
const ENGINE_TEXT: usize = 80;

/// A running engine: its input, and its output lines arriving on a channel (read by a thread of its own, so
/// that a silent engine cannot block the arena).
struct Process {
    child: Child,
    input: ChildStdin,
    lines: Receiver<Result<String, String>>,
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub struct EngineAgent {
    name: String,
    command: Vec<String>,
    protocol: Protocol,
    move_time: Duration,
    startup_time: Duration,
    process: Option<Process>,
    /// Lines received since the move was asked for.
    lines_this_move: u32,
    /// The moves the engine has been told (GTP keeps its own board).
    told: Vec<Move>,
    pings: u64,
}

impl EngineAgent {
    /// An engine run as `cmd` (words split on spaces, double quotes keep a word whole), given `move_time` a move
    /// and `startup_time` more for its first; nothing starts yet.
    pub fn new(
        name: String,
        cmd: &str,
        protocol: Protocol,
        move_time: Duration,
        startup_time: Duration,
    ) -> Result<EngineAgent, String> {
        let command = split_command(cmd)?;
        if command.is_empty() {
            return Err("cmd is empty".into());
        }
        let (process, told, pings, lines_this_move) = (None, vec![], 0, 0);
        Ok(EngineAgent { name, command, protocol, move_time, startup_time, process, lines_this_move, told, pings })
    }

    fn fail(&self, message: impl Into<String>) -> AgentError {
        AgentError::Failed { agent: self.name.clone(), message: message.into() }
    }

    fn start(&mut self) -> Result<(), AgentError> {
        let mut child = Command::new(&self.command[0])
            .args(&self.command[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| self.fail(format!("could not start '{}': {e}", self.command[0])))?;
        let (Some(input), Some(output)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(self.fail("no pipes to the engine"));
        };
        let (send, lines) = mpsc::sync_channel(LINES_BUFFERED);
        std::thread::spawn(move || {
            let mut output = BufReader::new(output);
            loop {
                let mut line = Vec::new();
                match (&mut output).take(MAX_LINE_BYTES as u64 + 1).read_until(b'\n', &mut line) {
                    Ok(0) | Err(_) => break,
                    Ok(_) if line.len() > MAX_LINE_BYTES => {
                        let _ = send.send(Err(format!("printed a line longer than {MAX_LINE_BYTES} bytes")));
                        break;
                    }
                    Ok(_) => {
                        let text = String::from_utf8_lossy(&line).trim_end_matches(['\n', '\r']).to_string();
                        if send.send(Ok(text)).is_err() {
                            break;
                        }
                    }
                }
            }
        });
        self.process = Some(Process { child, input, lines });
        self.told.clear();
        if self.protocol == Protocol::Nboard {
            self.send("nboard 2")?;
            self.send("set depth 60")?;
        }
        Ok(())
    }

    fn send(&mut self, line: &str) -> Result<(), AgentError> {
        let name = self.name.clone();
        let process =
            self.process.as_mut().ok_or_else(|| AgentError::Failed { agent: name, message: "not started".into() })?;
        let sent = writeln!(process.input, "{line}").and_then(|_| process.input.flush());
        sent.map_err(|e| self.fail(format!("crashed or closed its pipe (writing '{line}': {e})")))
    }

    /// The next line from the engine before `deadline`: lines that keep coming do not stretch it.
    fn receive(&mut self, deadline: Instant) -> Result<String, AgentError> {
        let name = self.name.clone();
        let process =
            self.process.as_mut().ok_or_else(|| AgentError::Failed { agent: name, message: "not started".into() })?;
        let now = Instant::now();
        if now >= deadline {
            return Err(self.fail("over its time: no move"));
        }
        self.lines_this_move += 1;
        if self.lines_this_move > MAX_LINES_PER_MOVE {
            return Err(self.fail(format!("flooded its output: over {MAX_LINES_PER_MOVE} lines for one move")));
        }
        match process.lines.recv_timeout(deadline - now) {
            Ok(Ok(line)) => Ok(line),
            Ok(Err(problem)) => Err(self.fail(problem)),
            Err(RecvTimeoutError::Timeout) => Err(self.fail("over its time: no reply")),
            Err(RecvTimeoutError::Disconnected) => Err(self.fail("crashed or closed its pipe")),
        }
    }

    /// A GTP command's reply: the text after `=`, or the engine's `?` message as an error.
    fn gtp(&mut self, command: &str, deadline: Instant) -> Result<String, AgentError> {
        self.send(command)?;
        loop {
            let line = self.receive(deadline)?;
            let line = line.trim();
            if line.is_empty() {
                continue;
            }
            let reply = if let Some(rest) = line.strip_prefix('=') {
                Ok(rest.trim_start_matches(|c: char| c.is_ascii_digit()).trim().to_string())
            } else if let Some(rest) = line.strip_prefix('?') {
                Err(self.fail(format!("refused '{command}': {}", clip(rest.trim(), ENGINE_TEXT))))
            } else {
                // No empty line is waited for: what follows a malformed reply is not a reply either.
                return Err(self.fail(format!("malformed reply to '{command}': '{}'", clip(line, ENGINE_TEXT))));
            };
            // The empty line that ends every reply.
            let _ = self.receive(deadline)?;
            return reply;
        }
    }

    fn gtp_move(&mut self, game: &Game, deadline: Instant) -> Result<Move, AgentError> {
        let history = game.moves();
        if self.told.is_empty() || !history.starts_with(&self.told) {
            self.gtp(&format!("boardsize {}", game.rules.size), deadline)?;
            self.gtp("clear_board", deadline)?;
            self.told.clear();
        }
        let mut replay = Game::new(game.rules);
        replay.play_all(&self.told).map_err(|e| self.fail(e.to_string()))?;
        for &mv in &history[self.told.len()..] {
            let colour = color_name(replay.position().side);
            self.gtp(&format!("play {colour} {}", move_name(mv)), deadline)?;
            replay.push(mv).map_err(|e| self.fail(e.to_string()))?;
        }
        self.told = history.to_vec();
        let colour = color_name(game.position().side);
        let reply = self.gtp(&format!("genmove {colour}"), deadline)?;
        let mv =
            parse_move(&reply).ok_or_else(|| self.fail(format!("malformed move '{}'", clip(&reply, ENGINE_TEXT))))?;
        // The engine has played it on its board.
        self.told.push(mv);
        Ok(mv)
    }

    fn nboard_move(&mut self, game: &Game, deadline: Instant) -> Result<Move, AgentError> {
        let record = GgfGame::from_game(game, "?", "?").to_ggf();
        self.pings += 1;
        let ping = self.pings;
        self.send(&format!("set game {record}"))?;
        self.send(&format!("ping {ping}"))?;
        // Replies before the pong belong to earlier commands.
        loop {
            let line = self.receive(deadline)?;
            if line.trim() == format!("pong {ping}") {
                break;
            }
        }
        self.send("go")?;
        loop {
            let line = self.receive(deadline)?;
            let Some(rest) = line.trim().strip_prefix("===") else { continue };
            // `=== F5/1.5/0.2` (the protocol) or `=== f5 1.50 0.2` (Edax).
            let word = rest.trim().split(['/', ' ']).next().unwrap_or("");
            return parse_move(word)
                .ok_or_else(|| self.fail(format!("malformed move '{}'", clip(line.trim(), ENGINE_TEXT))));
        }
    }
}

impl Agent for EngineAgent {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn select_move(&mut self, game: &Game) -> Result<Move, AgentError> {
        // A forced pass is not asked for: the engine hears of it with the next move.
        if let Some(pass) = crate::agent::forced_move(game)? {
            return Ok(pass);
        }
        let mut deadline = Instant::now() + self.move_time;
        self.lines_this_move = 0;
        if self.process.is_none() {
            self.start()?;
            deadline += self.startup_time;
        }
        let result = match self.protocol {
            Protocol::Gtp => self.gtp_move(game, deadline),
            Protocol::Nboard => self.nboard_move(game, deadline),
        };
        if result.is_err() {
            // A process that failed once is not trusted with another move: the next game starts a fresh one.
            self.process = None;
        }
        result
    }
}

fn color_name(color: Color) -> &'static str {
    match color {
        Color::Black => "b",
        Color::White => "w",
    }
}

fn move_name(mv: Move) -> String {
    match mv {
        Move::Play(sq) => sq.to_string(),
        Move::Pass => "pass".into(),
    }
}

/// At most `chars` characters of a peer's text, for a message: a huge token is not repeated whole.
pub(crate) fn clip(text: &str, chars: usize) -> String {
    match text.char_indices().nth(chars) {
        Some((end, _)) => format!("{}...", &text[..end]),
        None => text.to_string(),
    }
}

/// `d3`, `D3`, `pass`, `PA` (either case).
pub fn parse_move(word: &str) -> Option<Move> {
    let word = word.trim();
    if word.eq_ignore_ascii_case("pass") || word.eq_ignore_ascii_case("pa") {
        return Some(Move::Pass);
    }
    word.to_ascii_lowercase().parse().ok().map(Move::Play)
}

/// Words split on whitespace; double quotes keep spaces inside a word. An unclosed quote is an error.
fn split_command(cmd: &str) -> Result<Vec<String>, String> {
    let (mut words, mut word, mut quoted, mut started) = (Vec::new(), String::new(), false, false);
    for c in cmd.chars() {
        match c {
            '"' | '\'' => (quoted, started) = (!quoted, true),
            c if c.is_whitespace() && !quoted => {
                if started {
                    words.push(std::mem::take(&mut word));
                    started = false;
                }
            }
            c => {
                word.push(c);
                started = true;
            }
        }
    }
    if quoted {
        return Err(format!("cmd '{cmd}' has an unclosed quote"));
    }
    if started {
        words.push(word);
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_split_into_words_and_moves_parse_in_either_form() {
        assert_eq!(split_command("edax -q  -l 'a b'").unwrap(), ["edax", "-q", "-l", "a b"]);
        assert!(split_command("edax 'x").is_err());
        assert_eq!(parse_move("D3"), parse_move("d3"));
        assert_eq!(parse_move("PA"), Some(Move::Pass));
        assert_eq!(parse_move("pass"), Some(Move::Pass));
        assert_eq!(parse_move("z9"), None);
        assert_eq!(parse_move(""), None);
    }

    #[test]
    fn a_program_that_cannot_start_is_an_error_not_a_panic() {
        let mut agent = engine("/no/such/engine", Protocol::Gtp, 1);
        let err = agent.select_move(&Game::new(othello_core::Rules::othello())).unwrap_err().to_string();
        assert!(err.contains("could not start"), "{err}");
    }

    fn engine(cmd: &str, protocol: Protocol, seconds: u64) -> EngineAgent {
        let time = Duration::from_secs(seconds);
        EngineAgent::new("e".into(), cmd, protocol, time, Duration::from_millis(500)).unwrap()
    }

    /// The failure of the engine's first move, and how long it took to come.
    fn first_move_failure(cmd: &str, protocol: Protocol, seconds: u64) -> (String, Duration) {
        let started = Instant::now();
        let err = engine(cmd, protocol, seconds).select_move(&Game::new(othello_core::Rules::othello())).unwrap_err();
        (err.to_string(), started.elapsed())
    }

    #[test]
    fn a_flooding_engine_is_stopped_at_its_time_or_its_line_limit() {
        // `yes` prints "y" lines without end: never a pong, so only the limits end the move.
        let (err, took) = first_move_failure("yes", Protocol::Nboard, 1);
        assert!(err.contains("over its time") || err.contains("flooded"), "{err}");
        assert!(took < Duration::from_secs(10), "{took:?}");
        // A line without end is refused once it passes the longest line.
        let (err, took) = first_move_failure("sh -c 'while :; do printf xxxxxxxx; done'", Protocol::Nboard, 60);
        assert!(err.contains("longer than"), "{err}");
        assert!(took < Duration::from_secs(30), "{took:?}");
    }

    #[test]
    fn an_echo_is_a_malformed_reply_and_an_engine_that_exits_a_closed_pipe() {
        let (err, took) = first_move_failure("cat", Protocol::Gtp, 5);
        assert!(err.contains("malformed reply to 'boardsize 8': 'boardsize 8'"), "{err}");
        assert!(took < Duration::from_secs(5), "{took:?}");
        let (err, _) = first_move_failure("true", Protocol::Gtp, 5);
        assert!(err.contains("crashed or closed its pipe"), "{err}");
    }
}
