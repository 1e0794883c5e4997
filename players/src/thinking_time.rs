//! A player's thinking time: seconds a move, a clock for the whole game, or both, and how a clock is spent: more
//! in the midgame than in the opening (whose positions the network knows best) or the endgame (which the solver
//! decides), never so much that the moves still to come are left without time.

use std::time::Duration;

/// What is left on a player's clock, as a front end or the player's own `total=` keeps it: `left` for the rest of
/// the game, or for its next `moves` moves (a byo-yomi period, as GTP's `time_left` gives it).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Clock {
    pub left: Duration,
    pub moves: Option<u32>,
}

/// Kept back from each move for what surrounds its search: the protocol's round trip, the move's bookkeeping.
pub const MOVE_OVERHEAD: Duration = Duration::from_millis(15);

/// Of the time left, the share a clock spends at all: the rest absorbs a slow move.
const SPENDABLE: f64 = 0.95;

/// A move's weight in the clock's division, by the share of the board still empty: the opening's positions are
/// the network's best known and its tree carries over; the endgame's the solver mostly settles in a fraction of
/// its share (what a move leaves unspent goes to the moves after it).
fn weight(empties: u32, squares: u32) -> f64 {
    let empty = empties as f64 / squares.max(1) as f64;
    if empty > 0.7 {
        0.6
    } else if empty < 0.3 {
        0.25
    } else {
        1.0
    }
}

impl Clock {
    /// The time for the move now, `empties` squares of `squares` empty: a period's time split evenly over its moves;
    /// a game's clock split over the player's moves still to come (every second ply), each by its weight.
    pub fn move_time(&self, empties: u32, squares: u32) -> Duration {
        let spendable = self.left.mul_f64(SPENDABLE);
        let share = match self.moves {
            Some(moves) => spendable / moves.max(1),
            None => {
                let own = |k: u32| weight(empties.saturating_sub(2 * k), squares);
                let still_to_play: f64 = (0..empties.div_ceil(2).max(1)).map(own).sum();
                spendable.mul_f64(own(0) / still_to_play)
            }
        };
        share.saturating_sub(MOVE_OVERHEAD)
    }

    /// The clock after a move that took `spent`.
    pub fn after(&self, spent: Duration) -> Clock {
        Clock { left: self.left.saturating_sub(spent), moves: self.moves.map(|m| m.saturating_sub(1).max(1)) }
    }
}

/// The time for a move of a player given `per_move` at most a move and `clock` for the game (each optional): the
/// smaller of the two; None for a player without a time control.
pub fn move_time(per_move: Option<Duration>, clock: Option<Clock>, empties: u32, squares: u32) -> Option<Duration> {
    let from_clock = clock.map(|c| c.move_time(empties, squares));
    match (per_move, from_clock) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secs(s: f64) -> Duration {
        Duration::from_secs_f64(s)
    }

    /// A game's clock by hand: 60 s at the start of 8x8 (60 empties, 30 own moves: 60-46 empties are 8 moves at
    /// 0.6 (more than 70% empty), 44-20 are 13 at 1.0, 18-2 are 9 at 0.25: 4.8 + 13 + 2.25 = 20.05): 57 s x 0.6 /
    /// 20.05 = 1.7057 s, less the overhead; at 30 empties (15 own moves: 30-20 are 6 at 1.0, 18-2 are 9 at 0.25:
    /// 8.25), 57 x 1 / 8.25 = 6.9091 s.
    #[test]
    fn a_game_clock_gives_the_midgame_more() {
        let clock = Clock { left: secs(60.0), moves: None };
        let opening = clock.move_time(60, 64).as_secs_f64();
        assert!((opening - (57.0 * 0.6 / 20.05 - 0.015)).abs() < 1e-6, "{opening}");
        let midgame = clock.move_time(30, 64).as_secs_f64();
        assert!((midgame - (57.0 / 8.25 - 0.015)).abs() < 1e-6, "{midgame}");
        // The last move may take what is spendable.
        assert!((clock.move_time(1, 64).as_secs_f64() - (57.0 - 0.015)).abs() < 1e-6);
        // Spent move by move from the start, the clock never runs out, and the midgame's moves take the most.
        let (mut clock, mut spent) = (clock, vec![]);
        for empties in (1..=60).rev().step_by(2) {
            let t = clock.move_time(empties, 64);
            assert!(t < clock.left, "{empties} empties: {t:?} of {:?}", clock.left);
            clock = clock.after(t + MOVE_OVERHEAD);
            spent.push(t);
        }
        assert!(clock.left > Duration::ZERO);
        let longest = spent.iter().position(|t| t == spent.iter().max().unwrap()).unwrap();
        assert!((8..21).contains(&longest), "the longest move is own move {longest}: {spent:?}");
    }

    #[test]
    fn a_period_is_split_evenly_and_the_smaller_limit_wins() {
        let period = Clock { left: secs(10.0), moves: Some(5) };
        assert_eq!(period.move_time(40, 64), secs(9.5 / 5.0) - MOVE_OVERHEAD);
        assert_eq!(period.after(secs(1.0)), Clock { left: secs(9.0), moves: Some(4) });
        assert_eq!(move_time(Some(secs(0.5)), Some(period), 40, 64), Some(secs(0.5)));
        assert_eq!(move_time(Some(secs(5.0)), Some(period), 40, 64), Some(secs(1.9) - MOVE_OVERHEAD));
        assert_eq!(move_time(None, None, 40, 64), None);
        // A clock that has run out gives no time, not a panic.
        assert_eq!(Clock { left: Duration::ZERO, moves: None }.move_time(30, 64), Duration::ZERO);
    }
}
