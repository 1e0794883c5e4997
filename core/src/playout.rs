//! Uniformly random games: the simulator benchmark, and the rollout policy of random-rollout MCTS.

use rand::RngCore;
use rand_pcg::Pcg64Mcg;

use crate::kernel::{Kernel, KernelKind};
use crate::kernel_entry;
use crate::position::Position;

/// A uniformly random integer below `n` (Lemire's multiply-shift with rejection: exact, one multiply).
/// Written out here so that the same seed gives the same games whatever the version of `rand`.
#[inline(always)]
pub fn below(rng: &mut Pcg64Mcg, n: u32) -> u32 {
    let mut m = (rng.next_u32() as u64) * n as u64;
    if (m as u32) < n {
        let threshold = n.wrapping_neg() % n;
        while (m as u32) < threshold {
            m = (rng.next_u32() as u64) * n as u64;
        }
    }
    (m >> 32) as u32
}

/// Totals over a batch of random games.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PlayoutStats {
    pub games: u64,
    /// Moves played (passes not counted).
    pub moves: u64,
    /// Games won by the side to move at the start, lost, drawn.
    pub wins: u64,
    pub losses: u64,
    pub draws: u64,
    /// Sum of final disc differences (start mover minus opponent) and a checksum of the final boards, so that
    /// two implementations playing the same games can be compared.
    pub disc_difference: i64,
    pub checksum: u64,
}

/// Plays `games` uniformly random games of standard Othello moves (with passes, on the board `mask`) from
/// `start`, seeded with `seed`, with the fastest kernel.
pub fn random_games(start: &Position, mask: u64, games: u64, seed: u64) -> PlayoutStats {
    random_games_with(KernelKind::best(), start.player.0, start.opponent.0, mask, games, seed)
}

kernel_entry!(
    /// [`random_games`] with a chosen kernel, from the raw bitboards.
    pub fn random_games_with(p: u64, o: u64, mask: u64, games: u64, seed: u64) -> PlayoutStats = playout_loop
);

/// The random numbers of game `index` of a run seeded with `seed`: one stream per game, so that a game does not
/// depend on how many games are played at once or in which order they finish.
pub fn game_rng(seed: u64, index: u64) -> Pcg64Mcg {
    let hi = crate::position::hash_discs(seed, index);
    let lo = crate::position::hash_discs(index ^ 0x5851_f42d_4c95_7f2d, seed);
    Pcg64Mcg::new((hi as u128) << 64 | lo as u128)
}

/// Games in flight at once on one core: their dependency chains interleave, which hides the latency of each
/// move-generation / selection / flip step (measured: 4 lanes about 1.6x one lane).
const LANES: usize = 4;

#[inline(always)]
fn playout_loop<K: Kernel>(p0: u64, o0: u64, mask: u64, games: u64, seed: u64) -> PlayoutStats {
    let mut stats = PlayoutStats { games, ..Default::default() };
    let start_discs = (p0 | o0).count_ones() as u64;
    let mut p = [p0; LANES];
    let mut o = [o0; LANES];
    let mut turns = [0u32; LANES];
    let mut rng: [Pcg64Mcg; LANES] = std::array::from_fn(|j| game_rng(seed, j as u64));
    let mut active = [false; LANES];
    let mut next_game = 0u64;
    for a in active.iter_mut() {
        *a = next_game < games;
        next_game += 1;
    }
    while active.iter().any(|&a| a) {
        for j in 0..LANES {
            if !active[j] {
                continue;
            }
            let moves = K::moves(p[j], o[j]) & mask;
            if moves != 0 {
                let sq = K::select(moves, below(&mut rng[j], moves.count_ones()));
                let f = K::flips(p[j], o[j], sq);
                let mover = p[j] | f | 1 << sq;
                p[j] = o[j] ^ f;
                o[j] = mover;
                turns[j] += 1;
            } else if K::moves(o[j], p[j]) & mask != 0 {
                std::mem::swap(&mut p[j], &mut o[j]);
                turns[j] += 1;
            } else {
                // Game over: the final `p` is the start mover when an even number of turns went by.
                let (mine, theirs) = if turns[j] & 1 == 0 { (p[j], o[j]) } else { (o[j], p[j]) };
                stats.record(mine, theirs, start_discs);
                if next_game < games {
                    (p[j], o[j], turns[j], rng[j]) = (p0, o0, 0, game_rng(seed, next_game));
                    next_game += 1;
                } else {
                    active[j] = false;
                }
            }
        }
    }
    stats
}

impl PlayoutStats {
    /// Adds one finished game, given the final discs of the start mover and of its opponent.
    fn record(&mut self, mine: u64, theirs: u64, start_discs: u64) {
        let diff = mine.count_ones() as i64 - theirs.count_ones() as i64;
        self.moves += (mine | theirs).count_ones() as u64 - start_discs;
        self.disc_difference += diff;
        self.wins += (diff > 0) as u64;
        self.losses += (diff < 0) as u64;
        self.draws += (diff == 0) as u64;
        self.checksum = self.checksum.wrapping_add(crate::position::hash_discs(mine, theirs));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Rules, Status};
    use crate::Bitboard;

    /// The same games played through the general `Rules` API, from the same random numbers.
    fn reference(rules: &Rules, games: u64, seed: u64) -> PlayoutStats {
        let start = rules.start_position();
        let mut stats = PlayoutStats { games, ..Default::default() };
        for game in 0..games {
            let mut rng = game_rng(seed, game);
            let mut pos = start;
            loop {
                match rules.status(&pos) {
                    Status::Over => break,
                    Status::MustPass => pos = pos.pass(),
                    Status::Moves(m) => {
                        let sq = m.nth(below(&mut rng, m.count())).unwrap();
                        pos = rules.play(&pos, crate::Move::Play(sq)).unwrap();
                    }
                }
            }
            stats.record(pos.discs(start.side).0, pos.discs(!start.side).0, start.occupied().count() as u64);
        }
        stats
    }

    #[test]
    fn every_kernel_plays_the_same_games_as_the_rules_api() {
        for size in [8u8, 6, 4] {
            let rules = Rules::othello().with_size(size).unwrap();
            let want = reference(&rules, 3000, 42);
            assert_eq!(want.wins + want.losses + want.draws, 3000);
            for kind in KernelKind::available() {
                let s = rules.start_position();
                let got = random_games_with(kind, s.player.0, s.opponent.0, rules.mask(), 3000, 42);
                assert_eq!(got, want, "{kind} {size}x{size}");
            }
        }
    }

    #[test]
    fn below_is_uniform() {
        let mut rng = Pcg64Mcg::new(7);
        let mut counts = [0u32; 7];
        for _ in 0..700_000 {
            counts[below(&mut rng, 7) as usize] += 1;
        }
        // Chi-square with 6 degrees of freedom; 22.5 is the 0.999 quantile.
        let chi2: f64 = counts.iter().map(|&c| (c as f64 - 100_000.0).powi(2) / 100_000.0).sum();
        assert!(chi2 < 22.5, "{counts:?}");
        assert_eq!(Bitboard(0b1011).nth(2).map(|s| s.index()), Some(3));
    }
}
