//! Progress of long work on standard error: a bar on a terminal; elsewhere (a log file, a scheduler's output) a
//! plain line every half minute with the same figures, the time taken and the time left, so that a job's log shows
//! how it goes.

use std::time::{Duration, Instant};

use indicatif::{HumanDuration, ProgressBar, ProgressStyle};

/// How often a plain line is printed where standard error is not a terminal.
const PLAIN_LINE_EVERY: Duration = Duration::from_secs(30);

/// A bar, or plain lines, counting `unit`s ("games", "positions solved") towards a total or with none.
pub struct ProgressDisplay {
    bar: ProgressBar,
    unit: String,
    total: Option<u64>,
    /// The count at the first update and when it came: the time left is paced by this process's own work, not by
    /// work a resumed job found done.
    first: Option<(u64, Instant)>,
    /// The time left as the caller knows it (a run that ends at a time limit), in place of the count's pace.
    time_left: Option<Duration>,
    started: Instant,
    last_line: Instant,
}

impl ProgressDisplay {
    /// Counts `unit`s towards `total`, or with no end known.
    pub fn new(total: Option<u64>, unit: &str) -> ProgressDisplay {
        let template = match total {
            Some(_) => format!("{{bar:30}} {{pos}}/{{len}} {unit}  {{msg}}  ETA {{eta}}"),
            None => format!("{{spinner}} {{pos}} {unit}  {{msg}}"),
        };
        let style = ProgressStyle::with_template(&template).expect("a valid template");
        let bar = ProgressBar::new(total.unwrap_or(0)).with_style(style);
        let now = Instant::now();
        let unit = unit.to_string();
        ProgressDisplay { bar, unit, total, first: None, time_left: None, started: now, last_line: now }
    }

    /// Redraws the bar five times a second, for work that reports seldom (one long solve).
    pub fn tick_steadily(&self) {
        self.bar.enable_steady_tick(Duration::from_millis(200));
    }

    /// The time left, where the caller knows it better than the count's pace does; shown from the next `set`.
    pub fn set_time_left(&mut self, left: Option<Duration>) {
        self.time_left = left;
    }

    /// Whether the bar is not drawn (standard error is not a terminal).
    pub fn is_hidden(&self) -> bool {
        self.bar.is_hidden()
    }

    /// The count is `done` of `total` now (the total where it changes), with `message`'s figures.
    pub fn set(&mut self, done: u64, total: Option<u64>, message: &str) {
        if let Some(total) = total.filter(|_| self.total.is_some()) {
            self.total = Some(total);
            self.bar.set_length(total);
        }
        self.bar.set_position(done);
        if self.first.is_none() {
            self.first = Some((done, Instant::now()));
            self.bar.reset_eta();
        }
        match self.time_left.filter(|_| self.total.is_none()) {
            Some(left) => self.bar.set_message(format!("{message}  ETA {}", HumanDuration(left))),
            None => self.bar.set_message(message.to_string()),
        }
        if self.bar.is_hidden() && self.last_line.elapsed() >= PLAIN_LINE_EVERY {
            self.last_line = Instant::now();
            eprintln!("{}", self.plain_line(done, message));
        }
    }

    /// The time since the display began.
    pub fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }

    /// A line of its own, above the bar.
    pub fn say(&self, line: &str) {
        self.suspend(|| eprintln!("{line}"));
    }

    /// Runs `print` with the bar out of the way, for output of its own (on either stream).
    pub fn suspend<R>(&self, print: impl FnOnce() -> R) -> R {
        self.bar.suspend(print)
    }

    /// Ends the bar, leaving it on the terminal.
    pub fn finish(self) {
        self.bar.finish();
    }

    /// Ends the bar and clears it from the terminal.
    pub fn clear(self) {
        self.bar.finish_and_clear();
    }

    fn plain_line(&self, done: u64, message: &str) -> String {
        let count = match self.total {
            Some(total) => format!("{done}/{total} {}", self.unit),
            None => format!("{done} {}", self.unit),
        };
        let message = if message.is_empty() { String::new() } else { format!("  {message}") };
        let taken = HumanDuration(self.elapsed());
        let left = match (self.time_left, self.total, self.first) {
            (Some(left), _, _) => Some(left),
            (None, Some(total), Some((first, at))) => {
                time_left(done - first.min(done), at.elapsed(), total.saturating_sub(done))
            }
            _ => None,
        };
        let left = left.map_or(String::new(), |left| format!(", ETA {}", HumanDuration(left)));
        format!("{count}{message}  {taken} so far{left}")
    }
}

/// The time `left` more will take at the pace of `done` in `taken`; None before anything is done.
fn time_left(done: u64, taken: Duration, left: u64) -> Option<Duration> {
    (done > 0).then(|| taken.mul_f64(left as f64 / done as f64))
}

/// A rate of `unit`s a second, per hour where it is under one every ten seconds (a long game's pace).
pub fn rate(per_second: f64, unit: &str) -> String {
    match per_second {
        r if r >= 0.1 => format!("{r:.2} {unit}/s"),
        r => format!("{:.1} {unit}/hour", r * 3600.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_time_left_follows_the_pace_so_far() {
        // 12 games in 36 minutes: 3 minutes a game, 25 to go.
        assert_eq!(time_left(12, Duration::from_secs(36 * 60), 25), Some(Duration::from_secs(75 * 60)));
        assert_eq!(time_left(0, Duration::from_secs(60), 25), None);
        assert_eq!(rate(0.25, "games"), "0.25 games/s");
        assert_eq!(rate(1.0 / 180.0, "games"), "20.0 games/hour");
    }
}
