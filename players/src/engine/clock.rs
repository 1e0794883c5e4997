//! An engine's clock for one move. An engine is over its time when it has taken its time both on the wall clock
//! and on the processor (its process, its threads and the programs it started, together): an engine that searches
//! to a fixed depth (GRhino) on a machine busy with other work (a run's self-play and trainer beside its evaluation
//! at a lower priority) waits for a processor and is not at fault, while a multi-threaded one spends its processor
//! time faster than the wall clock and is not at fault either. An engine that waits for nothing (a hang) spends no
//! processor time: the wall clock alone ends its move at [`WALL_FACTOR`] times its time. Where the system does not
//! tell a program's processor time (not Linux, or no /proc), the wall clock alone is the clock.

use std::time::{Duration, Instant};

/// How many times its time an engine may take on the wall clock while it has not yet spent its time on the
/// processor: room for an engine at a lower priority beside several busy threads.
const WALL_FACTOR: u32 = 10;

/// The clock of one move.
pub(super) struct MoveClock {
    /// The move's time, a fresh process's start-up allowance included.
    limit: Duration,
    /// That allowance: part of the time, but not multiplied into the wall clock's backstop.
    allowance: Duration,
    started: Instant,
    /// The program's processor time when the move was asked for; None where the system does not tell it.
    cpu_at_start: Option<Duration>,
    /// The processor time the move has taken at the last reading.
    cpu_spent: Option<Duration>,
}

/// What a reading of the clock says.
#[derive(Debug, PartialEq)]
pub(super) enum Reading {
    /// Within the time: look again after this long at the latest.
    Within(Duration),
    Over(String),
}

impl MoveClock {
    /// A move's clock of `time` and a start-up `allowance` beside it, started now with the program's processor time
    /// `cpu` (None where it is not known).
    pub fn start(time: Duration, allowance: Duration, cpu: Option<Duration>) -> MoveClock {
        let (started, cpu_spent) = (Instant::now(), cpu.map(|_| Duration::ZERO));
        MoveClock { limit: time + allowance, allowance, started, cpu_at_start: cpu, cpu_spent }
    }

    /// The clock now, `cpu` telling the program's processor time; it is asked only once the wall clock is up.
    pub fn read(&mut self, cpu: impl FnOnce() -> Option<Duration>) -> Reading {
        let wall = self.started.elapsed();
        if wall >= self.limit {
            self.note(cpu());
        }
        judge(self.limit, self.allowance, wall, self.cpu_spent)
    }

    /// The time the move took, the program's processor time now being `cpu`, for the game's clock: the lesser of
    /// the wall clock's and the processor's.
    pub fn spent(&mut self, cpu: Option<Duration>) -> Duration {
        self.note(cpu);
        let wall = self.started.elapsed();
        self.cpu_spent.map_or(wall, |cpu| cpu.min(wall))
    }

    fn note(&mut self, cpu: Option<Duration>) {
        if let (Some(start), Some(now)) = (self.cpu_at_start, cpu) {
            self.cpu_spent = Some(now.saturating_sub(start));
        }
    }
}

/// Whether a move of `limit` (a start-up `allowance` of it included) is over when it has taken `wall` on the clock
/// and `cpu` of processor time (None where unknown), and if not, when to look again.
fn judge(limit: Duration, allowance: Duration, wall: Duration, cpu: Option<Duration>) -> Reading {
    if wall < limit {
        return Reading::Within(limit - wall);
    }
    let seconds = |d: Duration| format!("{:.1} s", d.as_secs_f64());
    // A start-up is waited for once: ten times a move's time, not ten times the start-up too.
    let backstop = (limit - allowance) * WALL_FACTOR + allowance;
    match cpu {
        None => Reading::Over(format!("over its time: no move within {}", seconds(limit))),
        Some(_) if wall >= backstop => Reading::Over(format!(
            "over its time: no move within {} on the wall clock ({WALL_FACTOR} times its {}{})",
            seconds(backstop),
            seconds(limit - allowance),
            if allowance.is_zero() { String::new() } else { format!(", and {} to start", seconds(allowance)) }
        )),
        Some(cpu) if cpu >= limit => Reading::Over(format!(
            "over its time: {} of processor time and {} on the wall clock, its time {}",
            seconds(cpu),
            seconds(wall),
            seconds(limit)
        )),
        // Its processor time grows no faster than the wall clock on each of the machine's processors.
        Some(cpu) => {
            let soonest = (limit - cpu) / processors();
            // Not `clamp`: the backstop may be nearer than the shortest wait.
            Reading::Within(soonest.max(Duration::from_millis(10)).min(backstop - wall))
        }
    }
}

/// The machine's processors, asked once: the answer reads the process's cgroup files, and the clock is read often.
fn processors() -> u32 {
    static PROCESSORS: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    *PROCESSORS.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get() as u32))
}

/// The processor time the program `pid` has taken, with its threads and the programs it started (those that still
/// run, and those it has waited for); None where the system does not tell it.
#[cfg(target_os = "linux")]
pub(super) fn cpu_time(pid: u32) -> Option<Duration> {
    let ticks = cpu_ticks(i32::try_from(pid).ok()?)?;
    Some(Duration::from_secs_f64(ticks as f64 / procfs::ticks_per_second() as f64))
}

#[cfg(target_os = "linux")]
fn cpu_ticks(pid: i32) -> Option<u64> {
    let process = procfs::process::Process::new(pid).ok()?;
    let stat = process.stat().ok()?;
    let mut ticks = stat.utime + stat.stime + u64::try_from(stat.cutime + stat.cstime).unwrap_or(0);
    // Its children that still run: they are not in its `cutime` until it has waited for them.
    for task in process.tasks().ok()?.flatten() {
        for child in task.children().unwrap_or_default() {
            ticks += i32::try_from(child).ok().and_then(cpu_ticks).unwrap_or(0);
        }
    }
    Some(ticks)
}

#[cfg(not(target_os = "linux"))]
pub(super) fn cpu_time(_pid: u32) -> Option<Duration> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: fn(u64) -> Duration = Duration::from_secs;

    #[test]
    fn a_move_is_over_when_it_took_its_time_on_the_clock_and_on_the_processor() {
        // Within its time on the wall clock: look again when it is up.
        assert_eq!(judge(S(10), S(0), S(4), Some(S(4))), Reading::Within(S(6)));
        // Waiting for a processor on a busy machine: not over.
        assert!(matches!(judge(S(10), S(0), S(30), Some(S(6))), Reading::Within(_)));
        // Both spent.
        let Reading::Over(why) = judge(S(10), S(0), S(12), Some(S(11))) else { panic!() };
        assert_eq!(why, "over its time: 11.0 s of processor time and 12.0 s on the wall clock, its time 10.0 s");
        // Many threads spend processor time faster than the clock: not over while the clock is within.
        assert!(matches!(judge(S(10), S(0), S(9), Some(S(40))), Reading::Within(_)));
        // A hang spends nothing: the wall clock ends it at ten times its time.
        assert!(matches!(judge(S(10), S(0), S(99), Some(S(0))), Reading::Within(_)));
        let nearly = S(100) - Duration::from_millis(1);
        assert_eq!(judge(S(10), S(0), nearly, Some(S(0))), Reading::Within(Duration::from_millis(1)));
        let Reading::Over(why) = judge(S(10), S(0), S(100), Some(S(0))) else { panic!() };
        assert_eq!(why, "over its time: no move within 100.0 s on the wall clock (10 times its 10.0 s)");
        // No processor time known: the wall clock alone.
        let Reading::Over(why) = judge(S(10), S(0), S(10), None) else { panic!() };
        assert_eq!(why, "over its time: no move within 10.0 s");
        // A fresh engine's start-up allowance is waited for once, not ten times (1 s a move, 20 s to start: 30 s).
        assert!(matches!(judge(S(21), S(20), S(29), Some(S(0))), Reading::Within(_)));
        let Reading::Over(why) = judge(S(21), S(20), S(30), Some(S(0))) else { panic!() };
        assert_eq!(
            why,
            "over its time: no move within 30.0 s on the wall clock (10 times its 1.0 s, and 20.0 s to start)"
        );
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_programs_time_counts_the_programs_it_started() {
        // A shell whose grandchild burns a processor for a second: the shell spends nothing itself.
        let mut child = std::process::Command::new("sh")
            .args(["-c", "timeout 1 sh -c 'while :; do :; done'; sleep 5"])
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(700));
        let burning = cpu_time(child.id()).unwrap();
        std::thread::sleep(Duration::from_millis(1000));
        let waited_for = cpu_time(child.id()).unwrap();
        let _ = child.kill();
        let _ = child.wait();
        assert!(burning >= Duration::from_millis(100), "{burning:?}");
        assert!(waited_for >= burning && waited_for <= Duration::from_millis(1200), "{burning:?} {waited_for:?}");
        assert_eq!(cpu_time(u32::MAX), None);
    }
}
