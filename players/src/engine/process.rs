//! A running engine program: its input, its output lines arriving on a channel (read by a thread of its own, so
//! that a silent engine cannot block the arena), and its standard error appended to a log, the last lines kept
//! for the message when it fails.

use std::collections::VecDeque;
use std::fs::OpenOptions;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::clock::{MoveClock, Reading};

/// The longest line an engine may print; a longer one is an error, so that an engine without newlines cannot
/// fill the memory.
const MAX_LINE_BYTES: usize = 64 * 1024;
/// The most lines an engine may print for one move (an NBoard engine's status and search lines included).
const MAX_LINES_PER_MOVE: u32 = 100_000;
/// Lines read ahead of the arena: the reader waits past this, so that a flooding engine is held back.
const LINES_BUFFERED: usize = 1024;
/// Lines of standard error kept for a failure's message.
const STDERR_KEPT: usize = 3;
/// An engine process's standard error written to the log whole up to this many bytes; past them, only its last
/// [`LOG_TAIL_LINES`] lines, after a line saying how many were left out (an engine flooding standard error wrote
/// 438 MB in 9 s).
const LOG_HEAD_BYTES: usize = 1 << 20;
const LOG_TAIL_LINES: usize = 200;
/// How much of an engine's text a message quotes.
pub(crate) const ENGINE_TEXT: usize = 80;

/// Why a conversation with an engine ended. `crashed`: the program is gone (it exited, or closed its pipes), so a
/// fresh one may be started in its place.
#[derive(Debug)]
pub(super) struct Fault {
    pub message: String,
    pub crashed: bool,
}

impl Fault {
    pub fn new(message: impl Into<String>) -> Fault {
        Fault { message: message.into(), crashed: false }
    }
}

/// Where engines' standard error goes: appended to `path`, each line after `label` (the engine and its game).
#[derive(Clone, Debug)]
pub struct StderrLog {
    pub path: PathBuf,
    pub label: String,
}

impl StderrLog {
    /// Appends one line, whole (a single write to a file opened for appending, so that engines of games played at
    /// once do not cut into each other's lines). A log that cannot be written is no reason to stop a game.
    fn append(&self, line: &str) {
        let open = || OpenOptions::new().create(true).append(true).open(&self.path);
        // The arena's directory is made as its first game is stored: an engine may speak before.
        let opened = open().or_else(|_| {
            std::fs::create_dir_all(self.path.parent().unwrap_or(Path::new(".")))?;
            open()
        });
        if let Ok(mut file) = opened {
            let _ = file.write_all(format!("{}: {line}\n", self.label).as_bytes());
        }
    }

    /// A line of the arena's own about the engine (a restart, say).
    pub fn note(&self, line: &str) {
        self.append(&format!("[othello-zero] {line}"))
    }
}

pub(super) struct Process {
    child: Child,
    input: ChildStdin,
    lines: Receiver<Result<String, String>>,
    stderr_tail: Arc<Mutex<VecDeque<String>>>,
    lines_this_move: u32,
}

impl Drop for Process {
    /// Ends the engine's whole process group (a wrapper script's children, an engine's helpers), then the engine.
    fn drop(&mut self) {
        #[cfg(unix)]
        if let Some(group) = i32::try_from(self.child.id()).ok().and_then(rustix::process::Pid::from_raw) {
            let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Process {
    pub fn start(command: &[String], log: Option<&StderrLog>) -> Result<Process, Fault> {
        let mut engine = Command::new(&command[0]);
        // A group of its own, which Drop ends whole.
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut engine, 0);
        let mut child = engine
            .args(&command[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| Fault::new(format!("could not start '{}': {e}", command[0])))?;
        let (Some(input), Some(output), Some(errors)) = (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err(Fault::new("no pipes to the engine"));
        };
        let (send, lines) = mpsc::sync_channel(LINES_BUFFERED);
        std::thread::spawn(move || {
            for_each_line(output, MAX_LINE_BYTES + 1, |line| {
                if line.len() > MAX_LINE_BYTES {
                    let _ = send.send(Err(format!("printed a line longer than {MAX_LINE_BYTES} bytes")));
                    return false;
                }
                send.send(Ok(text_of(&line))).is_ok()
            })
        });
        let stderr_tail = Arc::new(Mutex::new(VecDeque::new()));
        let (tail, log) = (stderr_tail.clone(), log.cloned());
        std::thread::spawn(move || {
            let (mut logged, mut held_back, mut left_out) = (0, VecDeque::new(), 0u64);
            // A longer line comes in pieces: standard error is kept, not parsed.
            for_each_line(errors, MAX_LINE_BYTES, |line| {
                let text = text_of(&line);
                if let Some(log) = &log {
                    if logged < LOG_HEAD_BYTES {
                        logged += log.label.len() + text.len() + 3;
                        log.append(&text);
                    } else {
                        if held_back.len() == LOG_TAIL_LINES {
                            held_back.pop_front();
                            left_out += 1;
                        }
                        held_back.push_back(text.clone());
                    }
                }
                let mut tail = tail.lock().unwrap_or_else(|e| e.into_inner());
                if tail.len() == STDERR_KEPT {
                    tail.pop_front();
                }
                tail.push_back(text);
                true
            });
            if let Some(log) = &log {
                if left_out > 0 {
                    log.note(&format!(
                        "{left_out} lines of standard error left out here (the log keeps head and tail)"
                    ));
                }
                held_back.iter().for_each(|line| log.append(line));
            }
        });
        Ok(Process { child, input, lines, stderr_tail, lines_this_move: 0 })
    }

    /// A new move is asked for: its lines count from zero.
    pub fn new_move(&mut self) {
        self.lines_this_move = 0;
    }

    pub fn send(&mut self, line: &str) -> Result<(), Fault> {
        let sent = writeln!(self.input, "{line}").and_then(|_| self.input.flush());
        sent.map_err(|e| self.crashed(format!("crashed or closed its pipe (writing '{line}': {e})")))
    }

    /// The processor time the program has taken so far (None where the system does not tell it).
    pub fn cpu_time(&self) -> Option<Duration> {
        super::clock::cpu_time(self.child.id())
    }

    /// The next line from the engine within its time: lines that keep coming do not stretch it.
    pub fn receive(&mut self, clock: &mut MoveClock) -> Result<String, Fault> {
        self.lines_this_move += 1;
        if self.lines_this_move > MAX_LINES_PER_MOVE {
            return Err(Fault::new(format!("flooded its output: over {MAX_LINES_PER_MOVE} lines for one move")));
        }
        loop {
            let wait = match clock.read(|| self.cpu_time()) {
                Reading::Within(wait) => wait,
                Reading::Over(why) => return Err(Fault::new(why)),
            };
            match self.lines.recv_timeout(wait) {
                Ok(Ok(line)) => return Ok(line),
                Ok(Err(problem)) => return Err(Fault::new(problem)),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(self.crashed("crashed or closed its pipe".into()));
                }
            }
        }
    }

    /// The next line where it comes within `wait` (a line its engine wrote with the one before, say), else None.
    pub fn receive_within(&mut self, wait: Duration) -> Result<Option<String>, Fault> {
        match self.lines.recv_timeout(wait) {
            Ok(Ok(line)) => Ok(Some(line)),
            Ok(Err(problem)) => Err(Fault::new(problem)),
            Err(RecvTimeoutError::Timeout) => Ok(None),
            Err(RecvTimeoutError::Disconnected) => Err(self.crashed("crashed or closed its pipe".into())),
        }
    }

    /// A crash's fault, with how the program ended and its last words on standard error.
    fn crashed(&mut self, what: String) -> Fault {
        // The reader sees the pipe close as the program exits: a moment later its status is known.
        let deadline = Instant::now() + Duration::from_millis(200);
        let status = loop {
            match self.child.try_wait() {
                Ok(Some(status)) => break Some(status),
                Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(5)),
                _ => break None,
            }
        };
        let mut message = what;
        if let Some(status) = status {
            message += &format!(", {status}");
        }
        let tail = self.stderr_tail.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(last) = tail.back() {
            message += &format!("; its last words: '{}'", super::clip(last, ENGINE_TEXT));
        }
        Fault { message, crashed: true }
    }
}

/// Hands `each` the lines of `source`, each at most `limit` bytes, until the source ends or `each` returns false.
fn for_each_line(source: impl Read, limit: usize, mut each: impl FnMut(Vec<u8>) -> bool) {
    let mut source = BufReader::new(source);
    loop {
        let mut line = Vec::new();
        match (&mut source).take(limit as u64).read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) if !each(line) => break,
            Ok(_) => {}
        }
    }
}

fn text_of(line: &[u8]) -> String {
    String::from_utf8_lossy(line).trim_end_matches(['\n', '\r']).to_string()
}
