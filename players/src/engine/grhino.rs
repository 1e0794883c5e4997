//! GRhino, the Othello engine Debian packages (`apt install grhino`): its GTP program `gtp-rhino`, levels 1 to 5.
//! A forced pass is implicit for it (it refuses `play COLOUR pass`), and its deeper levels think for seconds a
//! move at their own pace, so each level has a time that suits it.

use std::path::PathBuf;
use std::time::Duration;

/// The program's name, looked for on the PATH.
pub const PROGRAM: &str = "gtp-rhino";
/// Where Debian installs it: its games directory is not on every PATH.
pub const DEBIAN_PATH: &str = "/usr/games/gtp-rhino";
/// Its levels.
pub const LEVELS: std::ops::RangeInclusive<u32> = 1..=5;
/// The level when the spec gives none (GRhino's own default).
pub const DEFAULT_LEVEL: u32 = 3;

/// The program: on the PATH, else where Debian puts it; None when GRhino is not installed.
pub fn find() -> Option<PathBuf> {
    super::find_program(PROGRAM).or_else(|| super::find_program(DEBIAN_PATH))
}

/// The command line of `level` with the program at `program`.
pub fn command(program: &str, level: u32) -> String {
    format!("\"{program}\" -l {level}")
}

/// A move's time at `level` when the spec gives none: the level's own pace with room to spare (docs/BENCHMARKS.md).
/// Levels 1 to 3 answer within a tenth of a second on average and 4 within a second; the slowest level-4 move seen
/// took 18.8 s of processor time (the engine's clock counts the processor, so a busy machine does not matter).
/// Level 5 solves exactly from 18 empties with a full window, GRhino's clock ignored: one such move took 15.5
/// minutes of a core, so its limit is an hour.
pub fn move_time(level: u32) -> Duration {
    match level {
        ..=3 => super::DEFAULT_MOVE_TIME,
        4 => Duration::from_secs(60),
        _ => Duration::from_secs(3600),
    }
}

/// The level a command line runs GRhino at (`-l N`, `-lN`, `--level=N`, `--level N`; 3 where none is given), or
/// None when the command is not GRhino's: so that `engine:cmd="gtp-rhino -l 5",...` gets the level's pace too.
pub fn level_of(command: &[String]) -> Option<u32> {
    let program = std::path::Path::new(command.first()?).file_name()?;
    if program != PROGRAM {
        return None;
    }
    let mut level = DEFAULT_LEVEL;
    let mut words = command[1..].iter();
    while let Some(word) = words.next() {
        let value = match word.as_str() {
            "-l" | "--level" => words.next().map(String::as_str),
            other => other.strip_prefix("--level=").or_else(|| other.strip_prefix("-l")),
        };
        if let Some(n) = value.and_then(|v| v.parse().ok()).filter(|n| LEVELS.contains(n)) {
            level = n;
        }
    }
    Some(level)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_line_names_its_level() {
        let level = |cmd: &str| level_of(&cmd.split(' ').map(String::from).collect::<Vec<_>>());
        assert_eq!(level("gtp-rhino -l 5"), Some(5));
        assert_eq!(level("/usr/games/gtp-rhino --level=4 --log"), Some(4));
        assert_eq!(level("gtp-rhino -l1"), Some(1));
        assert_eq!(level("gtp-rhino"), Some(DEFAULT_LEVEL));
        assert_eq!(level("edax -l 5"), None);
        assert!(move_time(5) > move_time(3));
    }
}
