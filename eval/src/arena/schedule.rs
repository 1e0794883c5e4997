//! The schedule: round robins and gauntlets, each opening played twice with the colours swapped, and a gauntlet
//! spread over a ladder until it is won or lost whole.

use std::collections::HashMap;
use std::path::Path;

use othello_players::spec::AgentSpec;

use super::*;

/// One scheduled game.
#[derive(Clone, Debug, PartialEq)]
pub struct Pairing {
    pub key: String,
    /// The opening's index: both games of a pair start from it, with the colours swapped.
    pub pair: u64,
    pub black: AgentSpec,
    pub white: AgentSpec,
}

impl Pairing {
    /// The two games of pair `pair` between `a` and `b`: `a` black first, then the colours swapped.
    pub fn both_colours(a: &AgentSpec, b: &AgentSpec, pair: u64) -> [Pairing; 2] {
        let (a_name, b_name) = (a.to_string(), b.to_string());
        let game = |black: &AgentSpec, white: &AgentSpec, first_is_black: bool| Pairing {
            key: Pairing::key_of(&a_name, &b_name, pair, first_is_black),
            pair,
            black: black.clone(),
            white: white.clone(),
        };
        [game(a, b, true), game(b, a, false)]
    }

    /// What seeds the game: its key with each checkpoint named by its file alone, so that a checkpoint plays the
    /// same games from any directory (a run's copy, a run moved or rated from elsewhere).
    pub(crate) fn seed_key(&self) -> String {
        let file_only = |spec: &AgentSpec| {
            let file = |model: &str| Some(Path::new(model).file_name()?.to_str()?.to_string());
            spec.with_model(file).unwrap_or_else(|| spec.clone()).to_string()
        };
        Pairing::key(&file_only(&self.black), &file_only(&self.white), self.pair, self.key.ends_with(" ab"))
    }

    /// The key [`Pairing::both_colours`] gives the game of the players named `black` and `white`, with the
    /// pairing's first agent black (`ab`) or white (`ba`).
    pub(crate) fn key(black: &str, white: &str, pair: u64, first_is_black: bool) -> String {
        match first_is_black {
            true => Pairing::key_of(black, white, pair, true),
            false => Pairing::key_of(white, black, pair, false),
        }
    }

    /// The key of a game of the pairing of `first` and `second`: `first` black (`ab`) or white (`ba`).
    fn key_of(first: &str, second: &str, pair: u64, first_is_black: bool) -> String {
        let colours = if first_is_black { "ab" } else { "ba" };
        format!("{first} vs {second} #{pair} {colours}")
    }
}

/// Every game of a round robin between `agents` (or, with a `gauntlet` agent, of it against each of them), `games`
/// per pairing rounded up to whole pairs.
pub fn schedule(agents: &[AgentSpec], gauntlet: Option<&AgentSpec>, games: u32) -> Result<Vec<Pairing>, ArenaError> {
    let mut pairings: Vec<(&AgentSpec, &AgentSpec)> = Vec::new();
    match gauntlet {
        Some(g) => pairings.extend(agents.iter().filter(|a| *a != g).map(|a| (g, a))),
        None => {
            for (i, a) in agents.iter().enumerate() {
                pairings.extend(agents[i + 1..].iter().filter(|b| *b != a).map(|b| (a, b)));
            }
        }
    }
    if pairings.is_empty() {
        return Err(ArenaError::TooFewAgents);
    }
    let pairs = games.div_ceil(2).max(1) as u64;
    let mut out = Vec::new();
    for pair in 0..pairs {
        for (a, b) in &pairings {
            out.extend(Pairing::both_colours(a, b, pair));
        }
    }
    Ok(out)
}

/// How one player fared over a whole pairing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sweep {
    /// It won every game.
    AllWon,
    /// It lost every game.
    AllLost,
    /// Anything between.
    Split,
}

/// `player`'s outcome over its pairing with `opponent` (`games` games as [`schedule`] lays a gauntlet out), from
/// the stored rows by key; None while a game of it is missing.
pub fn sweep(
    rows: &HashMap<&str, &ResultRow>,
    player: &AgentSpec,
    opponent: &AgentSpec,
    games: u32,
) -> Result<Option<Sweep>, ArenaError> {
    let mut points = Vec::new();
    for p in schedule(&[opponent.clone(), player.clone()], Some(player), games)? {
        let Some(row) = rows.get(p.key.as_str()) else { return Ok(None) };
        points.push(if row.black == *player { row.black_score } else { 1.0 - row.black_score });
    }
    Ok(Some(if points.iter().all(|&s| s == 1.0) {
        Sweep::AllWon
    } else if points.iter().all(|&s| s == 0.0) {
        Sweep::AllLost
    } else {
        Sweep::Split
    }))
}

/// A gauntlet that spreads over a ladder rather than meeting every rung: from rung `start` upward until a rung
/// wins every game against the player, and downward until the player wins every game against a rung. Rungs
/// beyond those are as good as decided (the ladder is ordered weakest first), and their games would add next to
/// nothing to the ratings. `outcome(i)`: the player's [`Sweep`] against rung `i`, None while unplayed. Returns the
/// rungs to play next (at most one each way; none once the spread is complete).
pub fn rungs_to_play(rungs: usize, start: usize, outcome: impl Fn(usize) -> Option<Sweep>) -> Vec<usize> {
    if rungs == 0 {
        return vec![];
    }
    let start = start.min(rungs - 1);
    if outcome(start).is_none() {
        return vec![start];
    }
    let mut next = vec![];
    let mut up = start;
    while outcome(up) != Some(Sweep::AllLost) && up + 1 < rungs {
        up += 1;
        if outcome(up).is_none() {
            next.push(up);
            break;
        }
    }
    let mut down = start;
    while outcome(down) != Some(Sweep::AllWon) && down > 0 {
        down -= 1;
        if outcome(down).is_none() {
            next.push(down);
            break;
        }
    }
    next
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_robins_and_gauntlets_pair_every_opening_with_both_colours() {
        let [a, b, c, d] = <[AgentSpec; 4]>::try_from(specs(&["random", "greedy", "positional", "mcts"])).unwrap();
        let s = schedule(&[a.clone(), b.clone(), c.clone()], None, 3).unwrap();
        assert_eq!(s.len(), 3 * 4, "3 pairings, 3 games rounded up to 2 pairs");
        for p in &s {
            let twin = s.iter().find(|q| q.pair == p.pair && q.black == p.white && q.white == p.black);
            assert!(twin.is_some(), "{p:?} has no colour-swapped twin");
        }
        let g = schedule(&[a.clone(), b.clone(), c.clone()], Some(&a), 2).unwrap();
        assert_eq!(g.len(), 4);
        assert!(g.iter().all(|p| p.black == a || p.white == a));
        assert_eq!(g[0].key, "random vs greedy #0 ab");
        assert!(schedule(std::slice::from_ref(&a), None, 2).is_err());
        // Keys do not depend on the other agents: a pairing's games keep their keys when an agent joins.
        let more = schedule(&[a, b, c, d], None, 3).unwrap();
        assert!(s.iter().all(|p| more.contains(p)));
    }

    /// The rungs a spreading gauntlet meets, revealing each outcome as it is asked for.
    fn spread(truth: &[Sweep], start: usize) -> Vec<usize> {
        let mut known = vec![None; truth.len()];
        loop {
            let next = rungs_to_play(truth.len(), start, |i| known[i]);
            if next.is_empty() {
                break;
            }
            for i in next {
                assert!(known[i].is_none(), "rung {i} asked for twice");
                known[i] = Some(truth[i]);
            }
        }
        (0..truth.len()).filter(|&i| known[i].is_some()).collect()
    }

    #[test]
    fn a_gauntlet_spreads_until_a_sweep_each_way() {
        use Sweep::*;
        let ladder = [AllWon, AllWon, AllWon, Split, Split, AllLost, AllLost];
        assert_eq!(spread(&ladder, 3), [2, 3, 4, 5]);
        // From a rung it sweeps, only upward; from one that sweeps it (the start clamped), only downward.
        assert_eq!(spread(&ladder, 1), [1, 2, 3, 4, 5]);
        assert_eq!(spread(&ladder, 100), [2, 3, 4, 5, 6]);
        assert_eq!(spread(&[Split; 5], 2), [0, 1, 2, 3, 4]);
        assert_eq!(spread(&[AllLost, AllWon], 0), [0]);
        assert!(rungs_to_play(0, 0, |_| None).is_empty());
    }

    #[test]
    fn a_pairing_is_swept_only_when_every_game_went_one_way() {
        let [random, player] = <[AgentSpec; 2]>::try_from(specs(&["random", "pattern"])).unwrap();
        let rows_of = |scores: &[f64]| -> Vec<ResultRow> {
            let pairings = schedule(&[random.clone(), player.clone()], Some(&player), 4).unwrap();
            pairings
                .iter()
                .zip(scores)
                .map(|(p, &net)| ResultRow {
                    key: p.key.clone(),
                    pair: p.pair,
                    black: p.black.clone(),
                    white: p.white.clone(),
                    opening: String::new(),
                    black_score: if p.black == player { net } else { 1.0 - net },
                    ending: "normal".into(),
                    record: PathBuf::new(),
                })
                .collect()
        };
        let outcome = |scores: &[f64]| {
            let rows = rows_of(scores);
            let by_key = rows.iter().map(|r| (r.key.as_str(), r)).collect();
            sweep(&by_key, &player, &random, 4).unwrap()
        };
        assert_eq!(outcome(&[1.0; 4]), Some(Sweep::AllWon));
        assert_eq!(outcome(&[0.0; 4]), Some(Sweep::AllLost));
        assert_eq!(outcome(&[1.0, 1.0, 0.5, 1.0]), Some(Sweep::Split));
        assert_eq!(outcome(&[1.0; 3]), None, "a game still missing");
    }
}
