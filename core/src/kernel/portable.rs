//! The portable kernel: plain `u64` arithmetic, the reference the SIMD kernels are tested against.

use super::{Kernel, RAYS};

pub struct Portable;

const NOT_EDGE_COLS: u64 = 0x7e7e_7e7e_7e7e_7e7e;

/// Squares reached by outflanking lines from `p` over `mo` in one direction (Kogge-Stone style, 6 discs deep).
#[inline(always)]
fn direction(p: u64, mo: u64, d: u32) -> u64 {
    let mut l = mo & (p << d);
    let mut r = mo & (p >> d);
    l |= mo & (l << d);
    r |= mo & (r >> d);
    let pre_l = mo & (mo << d);
    let pre_r = pre_l >> d;
    l |= pre_l & (l << (2 * d));
    r |= pre_r & (r >> (2 * d));
    l |= pre_l & (l << (2 * d));
    r |= pre_r & (r >> (2 * d));
    (l << d) | (r >> d)
}

impl Kernel for Portable {
    #[inline(always)]
    fn moves(p: u64, o: u64) -> u64 {
        let oh = o & NOT_EDGE_COLS;
        let m = direction(p, oh, 1) | direction(p, o, 8) | direction(p, oh, 7) | direction(p, oh, 9);
        m & !(p | o)
    }

    #[inline(always)]
    fn flips(p: u64, o: u64, sq: u32) -> u64 {
        let rays = &RAYS.0[sq as usize];
        let mut f = 0;
        for &mask in &rays[..4] {
            // First non-opponent square going up: the lowest set bit of !o within the ray.
            let e = !o & mask;
            let outflank = e & e.wrapping_neg() & p;
            f |= mask & outflank.wrapping_sub((outflank != 0) as u64);
        }
        for &mask in &rays[4..] {
            // Going down: the highest set bit (`| 1` keeps the shift in range when the ray is all opponent).
            let e = !o & mask;
            let outflank = (1u64 << 63) >> (e | 1).leading_zeros() & p & mask;
            f |= mask & (outflank << 1).wrapping_neg();
        }
        f
    }
}
