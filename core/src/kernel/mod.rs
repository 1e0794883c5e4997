//! Move generation and flips on two `u64` bitboards (player, opponent): the hot path of everything.
//!
//! Each kernel implements the same two functions; a portable one runs anywhere, an AVX2 and an AVX-512 one are
//! chosen at run time when the CPU has them. Hot loops (perft, random playouts, batches) are written once as
//! `#[inline(always)]` generics over [`Kernel`] and instantiated per kernel by `kernel_entry!`, inside a function
//! compiled with that kernel's target features, so that the intrinsics inline into the loop.

pub mod portable;
#[cfg(target_arch = "x86_64")]
pub mod x86;

use std::fmt;
use std::str::FromStr;

/// The primitive operations on (player, opponent) bitboards.
///
/// Implementations other than [`Portable`](portable::Portable) may only be called when the CPU has their
/// features; the hot-loop entry points made by `kernel_entry!` ensure that by checking
/// [`KernelKind::is_available`].
pub trait Kernel {
    /// Squares where `p` (to move) may play against `o`: empty and outflanking at least one disc.
    fn moves(p: u64, o: u64) -> u64;
    /// Discs of `o` flipped when `p` plays on the empty square `sq` (0 when the move flips nothing).
    fn flips(p: u64, o: u64, sq: u32) -> u64;
    /// Index of the `n`-th (0-based) set bit of `bits`; `n < bits.count_ones()`.
    ///
    /// The default is a branchless binary search on popcounts: a loop clearing `n` bits mispredicts on every
    /// move of a random game and halves the playout speed.
    #[inline(always)]
    fn select(bits: u64, n: u32) -> u32 {
        let (mut b, mut n, mut index) = (bits, n, 0);
        for width in [32u32, 16, 8, 4, 2, 1] {
            let low = b & ((1u64 << width) - 1);
            let count = low.count_ones();
            let high = n >= count;
            n -= if high { count } else { 0 };
            index += if high { width } else { 0 };
            b = if high { b >> width } else { low };
        }
        index
    }

    /// Asks the CPU to bring the cache line holding `value` closer: a hint, with no effect on any result.
    #[inline(always)]
    fn prefetch<T>(value: &T) {
        let _ = value;
    }

    /// Whether [`Kernel::extract`] is a single fast instruction (the pattern evaluation then reads its patterns
    /// with it instead of transforming the board).
    const FAST_EXTRACT: bool = false;

    /// The bits of `x` at the squares of `mask`, packed from bit 0 in square order (BMI2's pext).
    #[inline(always)]
    fn extract(x: u64, mask: u64) -> u64 {
        let (mut m, mut out, mut bit) = (mask, 0, 0);
        while m != 0 {
            out |= (x >> m.trailing_zeros() & 1) << bit;
            m &= m - 1;
            bit += 1;
        }
        out
    }
}

/// Which kernel to run.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum KernelKind {
    Portable,
    Avx2,
    Avx512,
}

impl KernelKind {
    pub const ALL: [KernelKind; 3] = [KernelKind::Portable, KernelKind::Avx2, KernelKind::Avx512];

    /// Whether this CPU can run the kernel.
    pub fn is_available(self) -> bool {
        match self {
            KernelKind::Portable => true,
            #[cfg(target_arch = "x86_64")]
            KernelKind::Avx2 => x86::has_avx2(),
            #[cfg(target_arch = "x86_64")]
            KernelKind::Avx512 => x86::has_avx512(),
            #[cfg(not(target_arch = "x86_64"))]
            _ => false,
        }
    }

    /// The kernels this CPU can run, slowest first.
    pub fn available() -> Vec<KernelKind> {
        KernelKind::ALL.into_iter().filter(|k| k.is_available()).collect()
    }

    /// The fastest kernel this CPU can run; `OTHELLO_KERNEL=portable|avx2|avx512` overrides it downwards.
    pub fn best() -> KernelKind {
        static BEST: std::sync::OnceLock<KernelKind> = std::sync::OnceLock::new();
        *BEST.get_or_init(|| {
            let fastest = *KernelKind::available().last().unwrap_or(&KernelKind::Portable);
            match std::env::var("OTHELLO_KERNEL").ok().and_then(|s| s.parse::<KernelKind>().ok()) {
                Some(k) if k.is_available() => k,
                _ => fastest,
            }
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            KernelKind::Portable => "portable",
            KernelKind::Avx2 => "avx2",
            KernelKind::Avx512 => "avx512",
        }
    }
}

impl fmt::Display for KernelKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for KernelKind {
    type Err = String;
    fn from_str(s: &str) -> Result<KernelKind, String> {
        KernelKind::ALL
            .into_iter()
            .find(|k| k.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| format!("unknown kernel '{s}' (expected portable, avx2 or avx512)"))
    }
}

/// Defines `fn $name(kind: KernelKind, args...) -> R` that runs the `#[inline(always)]` generic `$generic::<K>` with
/// the kernel `kind` (falling back to the portable kernel when the CPU lacks `kind`'s features).
#[macro_export]
#[doc(hidden)]
macro_rules! kernel_entry {
    ($(#[$meta:meta])* $vis:vis fn $name:ident($($arg:ident: $ty:ty),* $(,)?) -> $ret:ty = $generic:ident) => {
        $(#[$meta])*
        $vis fn $name(kind: $crate::kernel::KernelKind, $($arg: $ty),*) -> $ret {
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx2,bmi1,bmi2,popcnt,lzcnt")]
                unsafe fn avx2($($arg: $ty),*) -> $ret {
                    $generic::<$crate::kernel::x86::Avx2>($($arg),*)
                }
                #[target_feature(enable = "avx512f,avx512cd,avx512vl,avx512bw,avx2,bmi1,bmi2,popcnt,lzcnt")]
                unsafe fn avx512($($arg: $ty),*) -> $ret {
                    $generic::<$crate::kernel::x86::Avx512>($($arg),*)
                }
                match kind {
                    // SAFETY: the CPU has the features these functions were compiled for.
                    $crate::kernel::KernelKind::Avx512 if kind.is_available() => {
                        return unsafe { avx512($($arg),*) }
                    }
                    $crate::kernel::KernelKind::Avx2 if kind.is_available() => {
                        return unsafe { avx2($($arg),*) }
                    }
                    _ => {}
                }
            }
            $generic::<$crate::kernel::portable::Portable>($($arg),*)
        }
    };
}

#[inline(always)]
fn moves_of<K: Kernel>(p: u64, o: u64) -> u64 {
    K::moves(p, o)
}
#[inline(always)]
fn flips_of<K: Kernel>(p: u64, o: u64, sq: u32) -> u64 {
    K::flips(p, o, sq)
}
kernel_entry!(
    /// Legal moves of `p` against `o` on the full 8x8 board, with kernel `kind`.
    pub fn moves_with(p: u64, o: u64) -> u64 = moves_of
);
kernel_entry!(
    /// Discs flipped when `p` plays `sq` against `o`, with kernel `kind`.
    pub fn flips_with(p: u64, o: u64, sq: u32) -> u64 = flips_of
);

/// Legal moves of `p` against `o` on the full 8x8 board, with the fastest kernel.
#[inline]
pub fn moves(p: u64, o: u64) -> u64 {
    moves_with(KernelKind::best(), p, o)
}

/// Discs flipped when `p` plays the empty square `sq` against `o`, with the fastest kernel.
#[inline]
pub fn flips(p: u64, o: u64, sq: u32) -> u64 {
    flips_with(KernelKind::best(), p, o, sq)
}

/// For every square, the squares along each of the 8 directions up to the edge. Entries 0..4 run towards higher
/// bits (+1, +8, +9, +7), entries 4..8 towards lower bits (-1, -8, -9, -7): the SIMD kernels load them as lanes.
#[repr(C, align(64))]
pub struct Rays(pub [[u64; 8]; 64]);

pub static RAYS: Rays = Rays(build_rays());

/// (column step, row step) per ray entry, in the order of [`RAYS`].
pub const DIRECTIONS: [(i8, i8); 8] = [(1, 0), (0, 1), (1, 1), (-1, 1), (-1, 0), (0, -1), (-1, -1), (1, -1)];

const fn build_rays() -> [[u64; 8]; 64] {
    let mut rays = [[0u64; 8]; 64];
    let mut sq = 0;
    while sq < 64 {
        let mut d = 0;
        while d < 8 {
            let (dc, dr) = DIRECTIONS[d];
            let mut c = (sq % 8) as i8 + dc;
            let mut r = (sq / 8) as i8 + dr;
            let mut mask = 0u64;
            while c >= 0 && c < 8 && r >= 0 && r < 8 {
                mask |= 1u64 << (r * 8 + c);
                c += dc;
                r += dr;
            }
            rays[sq][d] = mask;
            d += 1;
        }
        sq += 1;
    }
    rays
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_pcg::Pcg64Mcg;

    /// The slowest possible reference: walk each direction square by square.
    fn naive_flips(p: u64, o: u64, sq: u32) -> u64 {
        let mut flips = 0;
        for (dc, dr) in DIRECTIONS {
            let (mut c, mut r) = ((sq % 8) as i8 + dc, (sq / 8) as i8 + dr);
            let mut line = 0u64;
            while (0..8).contains(&c) && (0..8).contains(&r) {
                let bit = 1u64 << (r * 8 + c);
                if o & bit != 0 {
                    line |= bit;
                } else {
                    if p & bit != 0 {
                        flips |= line;
                    }
                    break;
                }
                c += dc;
                r += dr;
            }
        }
        flips
    }

    fn naive_moves(p: u64, o: u64) -> u64 {
        (0..64).filter(|&sq| (p | o) >> sq & 1 == 0 && naive_flips(p, o, sq) != 0).fold(0, |m, sq| m | 1 << sq)
    }

    /// Random positions of every density, including many nearly-full and nearly-empty ones.
    pub(crate) fn random_position(rng: &mut impl Rng) -> (u64, u64) {
        let occupied = rng.random::<u64>()
            | rng.random::<u64>()
                & match rng.random_range(0..4) {
                    0 => 0,
                    1 => rng.random::<u64>(),
                    2 => !0,
                    _ => rng.random::<u64>() & rng.random::<u64>(),
                };
        let occupied = if rng.random_bool(0.2) { occupied & rng.random::<u64>() } else { occupied };
        let p = occupied & rng.random::<u64>();
        (p, occupied & !p)
    }

    #[test]
    fn portable_kernel_matches_the_naive_reference() {
        let mut rng = Pcg64Mcg::seed_from_u64(1);
        for _ in 0..20_000 {
            let (p, o) = random_position(&mut rng);
            assert_eq!(portable::Portable::moves(p, o), naive_moves(p, o), "moves {p:#x} {o:#x}");
            for sq in 0..64 {
                if (p | o) >> sq & 1 == 0 {
                    assert_eq!(portable::Portable::flips(p, o, sq), naive_flips(p, o, sq), "flips {sq}");
                }
            }
        }
    }

    /// Every SIMD kernel the CPU has agrees with the portable one on millions of random positions.
    #[test]
    fn simd_kernels_match_the_portable_kernel() {
        let mut rng = Pcg64Mcg::seed_from_u64(2);
        let kinds: Vec<_> = KernelKind::available().into_iter().filter(|k| *k != KernelKind::Portable).collect();
        eprintln!("checking kernels {kinds:?}");
        for _ in 0..2_000_000 {
            let (p, o) = random_position(&mut rng);
            let want_moves = portable::Portable::moves(p, o);
            let sq = rng.random_range(0..64u32);
            let empty = (p | o) >> sq & 1 == 0;
            let want_flips = portable::Portable::flips(p, o, sq);
            let n = if want_moves != 0 { rng.random_range(0..want_moves.count_ones()) } else { 0 };
            for &k in &kinds {
                assert_eq!(moves_with(k, p, o), want_moves, "{k} moves {p:#x} {o:#x}");
                if empty {
                    assert_eq!(flips_with(k, p, o, sq), want_flips, "{k} flips {p:#x} {o:#x} {sq}");
                }
                if want_moves != 0 {
                    assert_eq!(select_with(k, want_moves, n), portable::Portable::select(want_moves, n));
                }
            }
        }
    }

    #[inline(always)]
    fn select_of<K: Kernel>(bits: u64, n: u32) -> u32 {
        K::select(bits, n)
    }
    kernel_entry!(fn select_with(bits: u64, n: u32) -> u32 = select_of);

    /// The seeds' fact: a move flips at most 18 discs. For every square that can be empty (the centre never is),
    /// fill each ray with opponent discs closed by an own disc: the most any position allows there.
    #[test]
    fn no_move_flips_more_than_18_discs() {
        let centre = 0x0000_0018_1800_0000u64;
        let mut most = 0;
        for sq in (0..64u32).filter(|&s| centre >> s & 1 == 0) {
            let (mut p, mut o) = (0u64, 0u64);
            for ray in RAYS.0[sq as usize] {
                if ray.count_ones() >= 2 {
                    // The farthest square of the ray is ours, the rest the opponent's.
                    let far = if ray > 1 << sq { 63 - ray.leading_zeros() } else { ray.trailing_zeros() };
                    p |= 1 << far;
                    o |= ray & !(1 << far);
                }
            }
            for k in KernelKind::available() {
                let n = flips_with(k, p, o, sq).count_ones();
                assert_eq!(n, o.count_ones(), "{k}: every opponent disc on the rays flips");
                most = most.max(n);
            }
        }
        assert_eq!(most, 18);
    }

    #[test]
    fn rays_stop_at_the_edges() {
        // From a1 the +1 ray is b1..h1 and the -1 ray is empty.
        assert_eq!(RAYS.0[0][0], 0xfe);
        assert_eq!(RAYS.0[0][4], 0);
        // From d4 the -9 ray is c3, b2, a1.
        assert_eq!(RAYS.0[27][6], 1 << 18 | 1 << 9 | 1);
    }
}
