//! What the commands' flags share: value parsers that refuse a bad value with a reason, and the help of `--rules`.

/// The help of a `--rules` flag: every rule variant, then what the flag's default is where clap cannot show it.
macro_rules! rules_help {
    ($default:literal) => {
        concat!(
            "Rule variants, comma-separated: a preset first (othello, traditional or reversi), then a size (4x4, 6x6, ",
            "8x8), reverse (fewest discs wins), empties (empties to the winner), a start (mirror, empty-start, ",
            "start=BOARD), white-first or black-first, pass or no-pass",
            $default
        )
    };
}
pub(crate) use rules_help;

/// A count given on the command line: a whole number, 1 or more (a zero count would do nothing, or nothing useful).
pub fn positive<T: std::str::FromStr + Default + PartialEq>(text: &str) -> Result<T, String> {
    match text.parse::<T>() {
        Ok(n) if n != T::default() => Ok(n),
        Ok(_) => Err("expected 1 or more".into()),
        Err(_) => Err(format!("'{text}' is not a whole number")),
    }
}

/// A time limit in minutes: 0 (no limit) to a year.
pub fn minutes(text: &str) -> Result<f64, String> {
    use othello_run::config_check::MAX_MINUTES;
    match text.parse::<f64>() {
        Ok(x) if (0.0..=MAX_MINUTES).contains(&x) => Ok(x),
        Ok(_) => Err(format!("expected 0 (no limit) to {MAX_MINUTES} minutes (a year)")),
        Err(_) => Err(format!("'{text}' is not a number")),
    }
}

/// A thread count: 1 or more, at most `MAX_THREADS` (more would only fail to start, or wait on each other).
pub fn thread_count(text: &str) -> Result<usize, String> {
    use othello_run::config_check::MAX_THREADS;
    match positive::<usize>(text)? {
        n if n <= MAX_THREADS => Ok(n),
        _ => Err(format!("expected at most {MAX_THREADS} threads")),
    }
}

/// A number that is finite and not negative (minutes, a disc margin, a prior's weight).
pub fn not_negative(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(x) if x.is_finite() && x >= 0.0 => Ok(x),
        Ok(_) => Err("expected a number, 0 or more".into()),
        Err(_) => Err(format!("'{text}' is not a number")),
    }
}

/// The longest time a seconds flag takes: a year (more is a mistyped number, and would overflow a deadline).
const MAX_SECONDS: f64 = 365.0 * 86_400.0;

/// Seconds, more than 0 and at most a year (a time limit, a measurement's length).
pub fn seconds(text: &str) -> Result<std::time::Duration, String> {
    match text.parse::<f64>() {
        Ok(x) if x > 0.0 && x <= MAX_SECONDS => Ok(std::time::Duration::from_secs_f64(x)),
        Ok(_) => Err(format!("expected seconds, more than 0, at most {MAX_SECONDS} (a year)")),
        Err(_) => Err(format!("'{text}' is not a number")),
    }
}

/// This machine's cores, where a thread count is left to it.
pub fn available_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}
