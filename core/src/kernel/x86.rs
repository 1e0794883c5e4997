//! AVX2 and AVX-512 kernels. The only unsafe code in the crate: each function here has its portable twin in
//! `portable.rs`, and `simd_kernels_match_the_portable_kernel` checks that they agree on millions of positions.

use std::arch::x86_64::*;

use super::{Kernel, RAYS};

/// Whether the CPU has AVX2's features, and AVX-512's, detected once: every kernel call checks them
/// (`KernelKind::is_available`), and nine detections a call cost 4% of a batched environment's step.
fn detected() -> (bool, bool) {
    static DETECTED: std::sync::OnceLock<(bool, bool)> = std::sync::OnceLock::new();
    *DETECTED.get_or_init(|| {
        let avx2 = is_x86_feature_detected!("avx2")
            && is_x86_feature_detected!("bmi1")
            && is_x86_feature_detected!("bmi2")
            && is_x86_feature_detected!("popcnt")
            && is_x86_feature_detected!("lzcnt");
        let avx512 = avx2
            && is_x86_feature_detected!("avx512f")
            && is_x86_feature_detected!("avx512cd")
            && is_x86_feature_detected!("avx512vl")
            && is_x86_feature_detected!("avx512bw");
        (avx2, avx512)
    })
}

#[inline]
pub fn has_avx2() -> bool {
    detected().0
}

#[inline]
pub fn has_avx512() -> bool {
    detected().1
}

/// Marker for the AVX2 kernel; its methods are only called inside functions compiled with AVX2 (see
/// `kernel_entry!`), after checking [`has_avx2`].
pub struct Avx2;
/// Marker for the AVX-512 kernel; called only after checking [`has_avx512`].
pub struct Avx512;

const NOT_EDGE_COLS: i64 = 0x7e7e_7e7e_7e7e_7e7e;

impl Kernel for Avx2 {
    #[inline(always)]
    fn moves(p: u64, o: u64) -> u64 {
        // SAFETY: only reached from code compiled for and running on AVX2 CPUs (see the type's docs).
        unsafe { moves_avx2(p, o) }
    }
    #[inline(always)]
    fn flips(p: u64, o: u64, sq: u32) -> u64 {
        // SAFETY: as above; `sq < 64` indexes RAYS.
        unsafe { flips_avx2(p, o, sq) }
    }
    #[inline(always)]
    fn prefetch<T>(value: &T) {
        prefetch(value)
    }
}

impl Kernel for Avx512 {
    #[inline(always)]
    fn moves(p: u64, o: u64) -> u64 {
        // SAFETY: only reached from code compiled for and running on AVX-512 CPUs.
        unsafe { moves_avx2(p, o) }
    }
    #[inline(always)]
    fn flips(p: u64, o: u64, sq: u32) -> u64 {
        // SAFETY: as above.
        unsafe { flips_avx512(p, o, sq) }
    }
    #[inline(always)]
    fn select(bits: u64, n: u32) -> u32 {
        // pdep is fast on every AVX-512 CPU (it is microcoded on the AVX2-only Zen 1/2, hence not used there).
        // SAFETY: AVX-512 CPUs have BMI2.
        unsafe { _pdep_u64(1u64 << n, bits).trailing_zeros() }
    }
    const FAST_EXTRACT: bool = true;
    #[inline(always)]
    fn extract(x: u64, mask: u64) -> u64 {
        // SAFETY: AVX-512 CPUs have BMI2 (pext is fast on all of them, as pdep above).
        unsafe { _pext_u64(x, mask) }
    }
    #[inline(always)]
    fn prefetch<T>(value: &T) {
        prefetch(value)
    }
}

#[inline(always)]
fn prefetch<T>(value: &T) {
    // SAFETY: the address of a live reference; a prefetch only hints the cache and never faults.
    unsafe { _mm_prefetch::<_MM_HINT_T0>(value as *const T as *const i8) }
}

/// The four directions (+-1, +-8, +-9, +-7) as lanes; left shifts go up the board, right shifts down.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn moves_avx2(p: u64, o: u64) -> u64 {
    let shift = _mm256_set_epi64x(7, 9, 8, 1);
    let shift2 = _mm256_set_epi64x(14, 18, 16, 2);
    let edge = _mm256_set_epi64x(NOT_EDGE_COLS, NOT_EDGE_COLS, -1, NOT_EDGE_COLS);
    let pp = _mm256_set1_epi64x(p as i64);
    let mo = _mm256_and_si256(_mm256_set1_epi64x(o as i64), edge);

    let mut l = _mm256_and_si256(mo, _mm256_sllv_epi64(pp, shift));
    let mut r = _mm256_and_si256(mo, _mm256_srlv_epi64(pp, shift));
    l = _mm256_or_si256(l, _mm256_and_si256(mo, _mm256_sllv_epi64(l, shift)));
    r = _mm256_or_si256(r, _mm256_and_si256(mo, _mm256_srlv_epi64(r, shift)));
    let pre_l = _mm256_and_si256(mo, _mm256_sllv_epi64(mo, shift));
    let pre_r = _mm256_srlv_epi64(pre_l, shift);
    l = _mm256_or_si256(l, _mm256_and_si256(pre_l, _mm256_sllv_epi64(l, shift2)));
    r = _mm256_or_si256(r, _mm256_and_si256(pre_r, _mm256_srlv_epi64(r, shift2)));
    l = _mm256_or_si256(l, _mm256_and_si256(pre_l, _mm256_sllv_epi64(l, shift2)));
    r = _mm256_or_si256(r, _mm256_and_si256(pre_r, _mm256_srlv_epi64(r, shift2)));
    let m = _mm256_or_si256(_mm256_sllv_epi64(l, shift), _mm256_srlv_epi64(r, shift));
    (or_lanes_256(m) as u64) & !(p | o)
}

#[target_feature(enable = "avx2")]
#[inline]
unsafe fn or_lanes_256(v: __m256i) -> i64 {
    let h = _mm_or_si128(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    _mm_cvtsi128_si64(_mm_or_si128(h, _mm_unpackhi_epi64(h, h)))
}

#[target_feature(enable = "avx2")]
#[inline]
unsafe fn flips_avx2(p: u64, o: u64, sq: u32) -> u64 {
    let (up, down) = rays_256(sq);
    // The highest set bit of each downward ray's non-opponent squares: smear them down the ray and keep the bit
    // nothing above covers.
    let e = _mm256_andnot_si256(_mm256_set1_epi64x(o as i64), down);
    let step = _mm256_set_epi64x(7, 9, 8, 1);
    let mut s = _mm256_srlv_epi64(e, step);
    s = _mm256_or_si256(s, _mm256_srlv_epi64(s, step));
    s = _mm256_or_si256(s, _mm256_srlv_epi64(s, _mm256_add_epi64(step, step)));
    s = _mm256_or_si256(s, _mm256_srlv_epi64(s, _mm256_slli_epi64(step, 2)));
    or_lanes_256(_mm256_or_si256(flips_up(up, p, o), flips_down(down, p, _mm256_andnot_si256(s, e)))) as u64
}

/// As [`flips_avx2`], with the highest bit of the downward rays from `vplzcntq` (AVX-512 CD on 256-bit lanes, VL)
/// instead of the smear. Not on one 512-bit vector for all eight directions: that was 13% slower in the solver on
/// an Intel Xeon, whose cores lower their clock for 512-bit work.
#[target_feature(enable = "avx2,avx512f,avx512cd,avx512vl")]
#[inline]
unsafe fn flips_avx512(p: u64, o: u64, sq: u32) -> u64 {
    let (up, down) = rays_256(sq);
    let e = _mm256_andnot_si256(_mm256_set1_epi64x(o as i64), down);
    let nearest = _mm256_srlv_epi64(_mm256_set1_epi64x(i64::MIN), _mm256_lzcnt_epi64(e));
    or_lanes_256(_mm256_or_si256(flips_up(up, p, o), flips_down(down, p, nearest))) as u64
}

/// The rays from `sq` in the four directions that go up the board, then the four that go down.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn rays_256(sq: u32) -> (__m256i, __m256i) {
    let rays = RAYS.0[sq as usize].as_ptr() as *const __m256i;
    (_mm256_load_si256(rays), _mm256_load_si256(rays.add(1)))
}

/// The flips along the upward rays: the first non-opponent square is the lowest set bit of !o in the ray; if it is
/// `p`'s, the squares below it flip.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn flips_up(up: __m256i, p: u64, o: u64) -> __m256i {
    let zero = _mm256_setzero_si256();
    let e = _mm256_andnot_si256(_mm256_set1_epi64x(o as i64), up);
    let outflank = _mm256_and_si256(_mm256_and_si256(e, _mm256_sub_epi64(zero, e)), _mm256_set1_epi64x(p as i64));
    let below = _mm256_and_si256(_mm256_add_epi64(outflank, _mm256_set1_epi64x(-1)), up);
    _mm256_andnot_si256(_mm256_cmpeq_epi64(outflank, zero), below)
}

/// The flips along the downward rays, given each ray's first non-opponent square (`nearest`, one bit or none): if
/// it is `p`'s, the squares above it flip.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn flips_down(down: __m256i, p: u64, nearest: __m256i) -> __m256i {
    let outflank = _mm256_and_si256(nearest, _mm256_set1_epi64x(p as i64));
    _mm256_and_si256(down, _mm256_sub_epi64(_mm256_setzero_si256(), _mm256_add_epi64(outflank, outflank)))
}
