//! An external program as a player (`engine:cmd="...",protocol=nboard|gtp`, or a named one such as
//! `grhino:level=3`): spoken to over its standard input and output, one process per game, started at its first
//! move. A well-behaved engine plays every game to its end: a forced pass is told the way it takes, its time is
//! the one its spec gives (a move's, and a game's in all), counted so that a busy machine is not its fault
//! ([`clock`]), what it prints on standard error goes to the arena's log, and a program that crashes is started
//! again and told the game so far. What is its own fault (no reply within its time, a reply that does not parse,
//! an illegal move, a flood of output, crashing again and again) is an error the arena records as a forfeit.

mod clock;
pub mod grhino;
mod gtp;
mod nboard;
mod process;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use othello_core::{Game, Move, Rules};

use clock::MoveClock;
pub use process::StderrLog;
use process::{Fault, Process};

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
/// its first move's time, and to the first after a restart.
pub const DEFAULT_STARTUP_TIME: Duration = Duration::from_secs(20);
/// The search depth an NBoard engine is set to when the spec gives none (`depth=`).
pub const DEFAULT_NBOARD_DEPTH: u32 = 60;
/// Restarts after a crash in one game: a program that keeps crashing forfeits.
const MAX_RESTARTS: u32 = 2;

/// An engine's time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Limits {
    /// For one move.
    pub move_time: Duration,
    /// More for the first move of a process, to start; up to this much of that move is not on the game's clock.
    pub startup_time: Duration,
    /// For all its moves of a game together, where set (a GTP engine is told its clock), start-ups aside.
    pub game_time: Option<Duration>,
}

pub struct EngineAgent {
    name: String,
    command: Vec<String>,
    protocol: Protocol,
    limits: Limits,
    nboard_depth: u32,
    /// The only rules it plays, where it says so.
    rules: Option<Rules>,
    process: Option<Process>,
    log: Option<StderrLog>,
    /// The moves the engine has been told (GTP keeps its own board).
    told: Vec<Move>,
    /// The engine refused `play COLOUR pass`: passes are left untold.
    passes_implicit: bool,
    /// The game as last asked for a move: a game that does not continue it is another.
    asked: Vec<Move>,
    /// Time spent on this game's moves.
    used: Duration,
    restarts: u32,
    pings: u64,
}

impl EngineAgent {
    /// An engine run as `cmd` (words split on spaces, double quotes keep a word whole); nothing starts yet, but a
    /// program that is not there is an error now, not a forfeit in every game.
    pub fn new(name: String, cmd: &str, protocol: Protocol, limits: Limits) -> Result<EngineAgent, String> {
        let command = split_command(cmd)?;
        if let Some(problem) = missing_program_of(&command) {
            return Err(problem);
        }
        Ok(EngineAgent {
            name,
            command,
            protocol,
            limits,
            nboard_depth: DEFAULT_NBOARD_DEPTH,
            rules: None,
            process: None,
            log: None,
            told: vec![],
            passes_implicit: false,
            asked: vec![],
            used: Duration::ZERO,
            restarts: 0,
            pings: 0,
        })
    }

    /// The time a move of `cmd` gets when its spec gives none: a known engine's own pace (GRhino's level), else
    /// [`DEFAULT_MOVE_TIME`].
    pub fn default_move_time(cmd: &str) -> Duration {
        let level = split_command(cmd).ok().and_then(|words| grhino::level_of(&words));
        level.map_or(DEFAULT_MOVE_TIME, grhino::move_time)
    }

    /// An NBoard engine's search depth (`set depth N`).
    pub fn with_nboard_depth(mut self, depth: u32) -> EngineAgent {
        self.nboard_depth = depth;
        self
    }

    /// An engine that plays only `rules` (GRhino: 8x8 Othello): an arena under other rules refuses it up front.
    pub fn playing_only(mut self, rules: Rules) -> EngineAgent {
        self.rules = Some(rules);
        self
    }

    fn process(&mut self) -> Result<&mut Process, Fault> {
        self.process.as_mut().ok_or_else(|| Fault::new("not started"))
    }

    fn note(&self, line: &str) {
        if let Some(log) = &self.log {
            log.note(line);
        }
    }

    fn start(&mut self) -> Result<(), Fault> {
        self.process = Some(Process::start(&self.command, self.log.as_ref())?);
        self.told.clear();
        match self.protocol {
            Protocol::Nboard => self.nboard_start(),
            Protocol::Gtp => Ok(()),
        }
    }

    /// What is left of the game's time, where the game has a limit.
    fn time_left(&self) -> Option<Duration> {
        self.limits.game_time.map(|total| total.saturating_sub(self.used))
    }

    /// The engine's move, and the time it took by the game's clock: a process's start-up (its `startup=`
    /// allowance, loading its tables, say) is not the game's time, so a restart after a crash costs the game's clock
    /// no more than the first start did.
    fn ask(&mut self, game: &Game) -> (Result<Move, Fault>, Duration) {
        let mut time = self.limits.move_time;
        if let Some(left) = self.time_left() {
            if left.is_zero() {
                return (Err(Fault::new("over its time for the game")), Duration::ZERO);
            }
            time = time.min(left);
        }
        // A fresh program's processor time starts at zero, its start-up included.
        let fresh = self.process.is_none();
        let startup = self.limits.startup_time;
        let game_time = |spent: Duration| if fresh { spent.saturating_sub(startup) } else { spent };
        let started = Instant::now();
        let mut allowance = Duration::ZERO;
        if fresh {
            if let Err(fault) = self.start() {
                return (Err(fault), game_time(started.elapsed()));
            }
            allowance = startup;
        }
        let process = match self.process() {
            Ok(process) => process,
            Err(fault) => return (Err(fault), game_time(started.elapsed())),
        };
        process.new_move();
        let cpu = process.cpu_time().map(|cpu| if fresh { Duration::ZERO } else { cpu });
        let mut clock = MoveClock::start(time, allowance, cpu);
        let result = match self.protocol {
            Protocol::Gtp => self.gtp_move(game, &mut clock),
            Protocol::Nboard => self.nboard_move(game, &mut clock),
        };
        let cpu = self.process.as_ref().and_then(Process::cpu_time);
        (result, game_time(clock.spent(cpu)))
    }
}

impl Agent for EngineAgent {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn keep_stderr(&mut self, log: StderrLog) {
        self.log = Some(log);
    }

    fn rules(&self) -> Option<Rules> {
        self.rules
    }

    fn select_move(&mut self, game: &Game) -> Result<Move, AgentError> {
        // A forced pass is not asked for: the engine hears of it with the next move.
        if let Some(pass) = crate::agent::forced_move(game)? {
            return Ok(pass);
        }
        if !game.moves().starts_with(&self.asked) {
            // Another game: its clock starts again.
            (self.used, self.restarts) = (Duration::ZERO, 0);
        }
        self.asked = game.moves().to_vec();
        loop {
            let (result, spent) = self.ask(game);
            self.used += spent;
            let fault = match result {
                Ok(mv) => return Ok(mv),
                Err(fault) => fault,
            };
            // A process that failed once is not trusted with another move.
            self.process = None;
            if !fault.crashed || self.restarts == MAX_RESTARTS {
                return Err(AgentError::Failed { agent: self.name.clone(), message: fault.message });
            }
            self.restarts += 1;
            self.note(&format!("{}: started again and told the game so far", fault.message));
        }
    }
}

/// Why `cmd` cannot start here: it is empty, does not split into words, or its program is not there.
pub fn missing_program(cmd: &str) -> Option<String> {
    split_command(cmd).map_or_else(Some, |command| missing_program_of(&command))
}

/// Why the command split into `command` cannot start here: it is empty or its program is not there.
fn missing_program_of(command: &[String]) -> Option<String> {
    let Some(program) = command.first() else {
        return Some("cmd is empty".into());
    };
    find_program(program).is_none().then(|| match program.contains('/') {
        true => format!("'{program}' is not an executable file"),
        false => format!("'{program}' is not on the PATH"),
    })
}

/// The executable `program` names: itself where it holds a `/`, else the first on the PATH.
fn find_program(program: &str) -> Option<PathBuf> {
    if program.contains('/') {
        return Some(PathBuf::from(program)).filter(|p| is_executable(p));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|dir| dir.join(program)).find(|p| is_executable(p))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

pub(crate) use othello_core::clip;

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
    fn a_program_that_is_not_there_is_an_error_before_any_game() {
        let limits = Limits { move_time: DEFAULT_MOVE_TIME, startup_time: DEFAULT_STARTUP_TIME, game_time: None };
        let err = |cmd: &str| EngineAgent::new("e".into(), cmd, Protocol::Gtp, limits).err().unwrap();
        assert_eq!(err("/no/such/engine -l 1"), "'/no/such/engine' is not an executable file");
        assert_eq!(err("no-such-engine-anywhere"), "'no-such-engine-anywhere' is not on the PATH");
        assert_eq!(err("  "), "cmd is empty");
    }

    fn engine(cmd: &str, protocol: Protocol, seconds: u64) -> EngineAgent {
        let limits = Limits {
            move_time: Duration::from_secs(seconds),
            startup_time: Duration::from_millis(500),
            game_time: None,
        };
        EngineAgent::new("e".into(), cmd, protocol, limits).unwrap()
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

    /// A GTP engine (a shell script in `dir`) that does `work` before it answers `genmove` with d3.
    fn gtp_engine_that(dir: &Path, work: &str, move_time: Duration) -> EngineAgent {
        let script = dir.join(format!("engine-{}.sh", work.len()));
        let text = format!(
            "while read -r c; do case \"$c\" in genmove*) {work}; printf '= d3\\n\\n';; *) printf '= \\n\\n';; esac; done"
        );
        std::fs::write(&script, text).unwrap();
        let limits = Limits { move_time, startup_time: Duration::ZERO, game_time: None };
        EngineAgent::new("e".into(), &format!("sh {}", script.display()), Protocol::Gtp, limits).unwrap()
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn an_engine_waiting_for_a_processor_keeps_its_move_and_one_spending_it_loses() {
        let dir = tempfile::tempdir().unwrap();
        let game = Game::new(othello_core::Rules::othello());
        // Three times its time on the wall clock, none of it on the processor (a busy machine looks the same).
        let mut waits = gtp_engine_that(dir.path(), "sleep 1.5", Duration::from_millis(500));
        assert_eq!(waits.select_move(&game).unwrap(), parse_move("d3").unwrap());
        // Processor time spent by a program it started.
        let burn = "timeout 5 sh -c 'while :; do :; done'";
        let mut burns = gtp_engine_that(dir.path(), burn, Duration::from_millis(500));
        let err = burns.select_move(&game).unwrap_err().to_string();
        assert!(err.contains("of processor time"), "{err}");
        // A hang: the wall clock ends it at ten times its time.
        let started = Instant::now();
        let mut hangs = gtp_engine_that(dir.path(), "sleep 60", Duration::from_millis(200));
        let err = hangs.select_move(&game).unwrap_err().to_string();
        assert!(err.contains("no move within 2.0 s on the wall clock"), "{err}");
        assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
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
