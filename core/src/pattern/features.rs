//! The patterns: each kind's cells, its instances (the kind carried by symmetries), and reading a position's index in
//! every instance, by shifts on the board's eight images or by the kernel's extract (pext).

use std::sync::OnceLock;

use crate::kernel::Kernel;
use crate::symmetry::{mirror_columns, transpose};
use crate::{Square, Symmetry};

/// One kind of pattern: its cells in the top-left orientation, and the symmetries whose images are its instances.
pub struct PatternKind {
    pub cells: u32,
    pub instances: &'static [usize],
}

/// The symmetries (indices of [`crate::Symmetry`]) that are rotations, and all eight.
const ROTATIONS: &[usize] = &[0, 3, 5, 6];
const ALL: &[usize] = &[0, 1, 2, 3, 4, 5, 6, 7];

/// The pattern kinds, in the order of their weights within a phase. The gathers in [`features`] follow this order.
pub const KINDS: [PatternKind; 11] = [
    PatternKind { cells: 10, instances: ROTATIONS }, // edge + 2 X-squares
    PatternKind { cells: 10, instances: ALL },       // corner 2x5
    PatternKind { cells: 9, instances: ROTATIONS },  // corner 3x3
    PatternKind { cells: 8, instances: ROTATIONS },  // row 2
    PatternKind { cells: 8, instances: ROTATIONS },  // row 3
    PatternKind { cells: 8, instances: ROTATIONS },  // row 4
    PatternKind { cells: 8, instances: &[0, 5] },    // main diagonal
    PatternKind { cells: 7, instances: ROTATIONS },  // diagonal 7
    PatternKind { cells: 6, instances: ROTATIONS },  // diagonal 6
    PatternKind { cells: 5, instances: ROTATIONS },  // diagonal 5
    PatternKind { cells: 4, instances: ROTATIONS },  // diagonal 4
];

/// Pattern instances per position.
pub const FEATURES: usize = 46;

const fn offsets() -> [u32; 12] {
    let mut o = [0u32; 12];
    let mut k = 0;
    while k < 11 {
        o[k + 1] = o[k] + 3u32.pow(KINDS[k].cells);
        k += 1;
    }
    o
}
pub(super) const OFFSETS: [u32; 12] = offsets();
/// Weights per phase: every configuration of every kind, then one constant (the phase's bias).
pub const WEIGHTS_PER_PHASE: usize = OFFSETS[11] as usize + 1;
pub(super) const BIAS: usize = WEIGHTS_PER_PHASE - 1;

/// Binary to ternary: the digits of `b` read in base 3.
const TERNARY: [u32; 1024] = {
    let mut t = [0u32; 1024];
    let mut b = 0;
    while b < 1024 {
        let (mut v, mut pow, mut i) = (0, 1, 0);
        while i < 10 {
            if b >> i & 1 == 1 {
                v += pow;
            }
            pow *= 3;
            i += 1;
        }
        t[b] = v;
        b += 1;
    }
    t
};

/// The diagonal from (row 0, column d) down-right.
const fn diagonal_mask(d: u32) -> u64 {
    let mut m = 0u64;
    let mut r = 0;
    while r + d < 8 {
        m |= 1 << (r * 8 + r + d);
        r += 1;
    }
    m
}
const DIAGONALS: [u64; 5] = [diagonal_mask(0), diagonal_mask(1), diagonal_mask(2), diagonal_mask(3), diagonal_mask(4)];

/// The eight images of a board, indexed as [`crate::Symmetry`]: bit 2 transposes, then bit 0 mirrors the columns,
/// bit 1 the rows.
#[inline(always)]
fn images(x: u64) -> [u64; 8] {
    let m = mirror_columns(x);
    let t = transpose(x);
    let mt = mirror_columns(t);
    [x, m, x.swap_bytes(), m.swap_bytes(), t, mt, t.swap_bytes(), mt.swap_bytes()]
}

/// The cells of kind `k` on a board image, as the bits of a number (cell i = bit i).
#[inline(always)]
fn gather(k: usize, x: u64) -> usize {
    (match k {
        0 => (x & 0xff) | (x >> 9 & 1) << 8 | (x >> 14 & 1) << 9,
        1 => (x & 0x1f) | (x >> 8 & 0x1f) << 5,
        2 => (x & 7) | (x >> 8 & 7) << 3 | (x >> 16 & 7) << 6,
        3..=5 => x >> (8 * (k - 2)) & 0xff,
        // One disc per row in distinct columns: a multiply gathers the columns into the top byte.
        _ => (x & DIAGONALS[k - 6]).wrapping_mul(0x0101_0101_0101_0101) >> (56 + k - 6),
    }) as usize
}

/// The index within a phase's weights of each pattern instance of the position (`p` to move, `o` the opponent).
#[inline(always)]
pub fn features(p: u64, o: u64) -> [u32; FEATURES] {
    let (tp, to) = (ternaries(p), ternaries(o));
    std::array::from_fn(|i| BASES[i] + tp.0[i] as u32 + 2 * to.0[i] as u32)
}

/// The discs of one side in each pattern instance as a ternary number (digit 1 where the side has a disc): an
/// instance's index is its kind's offset plus the mover's number plus twice the opponent's.
#[inline(always)]
pub(super) fn ternaries(x: u64) -> Lanes {
    let images = images(x);
    let mut out = Lanes([0; LANES]);
    // One call per kind with the kind a constant, so that each gather compiles to its own shifts and the loop over
    // the instances unrolls (a loop over the kinds compiled to a jump table: 2x slower).
    let mut n = 0;
    kind_ternaries::<0>(&images, &mut out, &mut n);
    kind_ternaries::<1>(&images, &mut out, &mut n);
    kind_ternaries::<2>(&images, &mut out, &mut n);
    kind_ternaries::<3>(&images, &mut out, &mut n);
    kind_ternaries::<4>(&images, &mut out, &mut n);
    kind_ternaries::<5>(&images, &mut out, &mut n);
    kind_ternaries::<6>(&images, &mut out, &mut n);
    kind_ternaries::<7>(&images, &mut out, &mut n);
    kind_ternaries::<8>(&images, &mut out, &mut n);
    kind_ternaries::<9>(&images, &mut out, &mut n);
    kind_ternaries::<10>(&images, &mut out, &mut n);
    out
}

#[inline(always)]
fn kind_ternaries<const K: usize>(images: &[u64; 8], out: &mut Lanes, n: &mut usize) {
    for &s in KINDS[K].instances {
        out.0[*n] = TERNARY[gather(K, images[s])] as u16;
        *n += 1;
    }
}

/// Lanes of a vector add: one number per pattern instance (46), padded to 48.
pub(super) const LANES: usize = 48;

/// A number per pattern instance.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C, align(32))]
pub struct Lanes(pub(crate) [u16; LANES]);

impl Lanes {
    // Plain loops: with the solver's target features each compiles to three 256-bit operations.
    #[inline(always)]
    pub(crate) fn add(&mut self, other: &Lanes) {
        for (a, b) in self.0.iter_mut().zip(other.0) {
            *a += b;
        }
    }
    #[inline(always)]
    pub(crate) fn sub(&mut self, other: &Lanes) {
        for (a, b) in self.0.iter_mut().zip(other.0) {
            *a -= b;
        }
    }
}

/// Each instance's kind offset, in the order of [`features`].
pub(super) const BASES: [u32; FEATURES] = {
    let mut bases = [0u32; FEATURES];
    let (mut k, mut i) = (0, 0);
    while k < KINDS.len() {
        let mut n = 0;
        while n < KINDS[k].instances.len() {
            bases[i] = OFFSETS[k];
            i += 1;
            n += 1;
        }
        k += 1;
    }
    bases
};

/// Each kind's cells as (column, row) in the top-left orientation, in the order of their ternary digits: the
/// definition that [`features`] computes by shifts on the board's images.
pub fn cells(k: usize) -> Vec<(u8, u8)> {
    let row = |r: u8| (0..8).map(move |c| (c, r));
    match k {
        0 => row(0).chain([(1, 1), (6, 1)]).collect(),
        1 => (0..2).flat_map(|r| (0..5).map(move |c| (c, r))).collect(),
        2 => (0..3).flat_map(|r| (0..3).map(move |c| (c, r))).collect(),
        3..=5 => row(k as u8 - 2).collect(),
        _ => (0..8 - (k as u8 - 6)).map(|r| (r + k as u8 - 6, r)).collect(),
    }
}

/// Every instance's squares on the board (a mask) and, for the bits of a board extracted at that mask in square
/// order, their ternary index in the kind's digit order: the tables of [`features_with`]'s extract path.
struct InstanceTables {
    masks: [u64; FEATURES],
    bases: [u32; FEATURES],
    starts: [usize; FEATURES],
    ternary: Vec<u32>,
}

fn instance_tables() -> &'static InstanceTables {
    static TABLES: OnceLock<InstanceTables> = OnceLock::new();
    TABLES.get_or_init(|| {
        let mut t =
            InstanceTables { masks: [0; FEATURES], bases: [0; FEATURES], starts: [0; FEATURES], ternary: vec![] };
        let mut i = 0;
        for (k, kind) in KINDS.iter().enumerate() {
            let cells = cells(k);
            for &s in kind.instances {
                // The image under s read at a cell is the board at the cell's inverse image.
                let inverse = Symmetry::from_index(s).inverse();
                let squares: Vec<u32> = cells
                    .iter()
                    .map(|&(c, r)| {
                        inverse.apply_square(Square::at(c, r).expect("cells are on the board"), 8).index() as u32
                    })
                    .collect();
                let mask = squares.iter().fold(0u64, |m, &sq| m | 1 << sq);
                // Extracted bit b is the b-th square of the mask; its digit is that square's cell.
                let digit_of_bit: Vec<usize> = (0..cells.len())
                    .map(|b| {
                        squares
                            .iter()
                            .position(|&sq| (mask & ((1u64 << sq) - 1)).count_ones() == b as u32)
                            .expect("each bit has a cell")
                    })
                    .collect();
                t.masks[i] = mask;
                t.bases[i] = OFFSETS[k];
                t.starts[i] = t.ternary.len();
                t.ternary.extend((0..1usize << cells.len()).map(|bits| {
                    digit_of_bit
                        .iter()
                        .enumerate()
                        .filter(|&(b, _)| bits >> b & 1 == 1)
                        .map(|(_, &d)| 3u32.pow(d as u32))
                        .sum::<u32>()
                }));
                i += 1;
            }
        }
        t
    })
}

/// [`features`] with the kernel's extract (pext) where it is one fast instruction; the two agree (tested).
#[inline(always)]
pub fn features_with<K: Kernel>(p: u64, o: u64) -> [u32; FEATURES] {
    if !K::FAST_EXTRACT {
        return features(p, o);
    }
    let t = instance_tables();
    let mut out = [0u32; FEATURES];
    for i in 0..FEATURES {
        let table = &t.ternary[t.starts[i]..];
        out[i] = t.bases[i] + table[K::extract(p, t.masks[i]) as usize] + 2 * table[K::extract(o, t.masks[i]) as usize];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::portable::Portable;
    use crate::Bitboard;
    use rand::{Rng, SeedableRng};

    /// The extract path of [`features_with`] whatever the kernel.
    fn extract_features<K: Kernel>(p: u64, o: u64) -> [u32; FEATURES] {
        struct Forced<K>(K);
        impl<K: Kernel> Kernel for Forced<K> {
            fn moves(p: u64, o: u64) -> u64 {
                K::moves(p, o)
            }
            fn flips(p: u64, o: u64, sq: u32) -> u64 {
                K::flips(p, o, sq)
            }
            const FAST_EXTRACT: bool = true;
            fn extract(x: u64, mask: u64) -> u64 {
                K::extract(x, mask)
            }
        }
        features_with::<Forced<K>>(p, o)
    }

    /// The features from their definition: each instance is the kind's cells carried by a symmetry, read square by
    /// square (0 empty, 1 mover, 2 opponent).
    fn reference_features(p: u64, o: u64) -> Vec<u32> {
        let mut out = vec![];
        for (k, kind) in KINDS.iter().enumerate() {
            for &s in kind.instances {
                // The image under s of the board, read at the kind's cells = the board read at the inverse image.
                let sym = Symmetry::from_index(s).inverse();
                let mut index = 0;
                for (i, &(c, r)) in cells(k).iter().enumerate() {
                    let sq = sym.apply_square(Square::at(c, r).unwrap(), 8);
                    let digit = if Bitboard(p).contains(sq) {
                        1
                    } else if Bitboard(o).contains(sq) {
                        2
                    } else {
                        0
                    };
                    index += digit * 3u32.pow(i as u32);
                }
                out.push(OFFSETS[k] + index);
            }
        }
        out
    }

    #[test]
    fn features_match_their_definition_on_random_boards() {
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(9);
        for _ in 0..5_000 {
            let occ: u64 = rng.random::<u64>() | rng.random::<u64>();
            let p = occ & rng.random::<u64>();
            let expected = reference_features(p, occ & !p);
            assert_eq!(features(p, occ & !p).to_vec(), expected);
            // The extract path, with the portable extract (a loop) standing in for pext ...
            assert_eq!(extract_features::<Portable>(p, occ & !p).to_vec(), expected);
            // ... and with pext itself where the CPU has it.
            #[cfg(target_arch = "x86_64")]
            if crate::KernelKind::Avx512.is_available() {
                assert_eq!(features_with::<crate::kernel::x86::Avx512>(p, occ & !p).to_vec(), expected);
            }
        }
    }

    #[test]
    fn every_square_is_covered_and_each_kind_has_its_count_of_instances() {
        assert_eq!(KINDS.iter().map(|k| k.instances.len()).sum::<usize>(), FEATURES);
        let mut covered = 0u64;
        for (k, kind) in KINDS.iter().enumerate() {
            for &s in kind.instances {
                let sym = Symmetry::from_index(s).inverse();
                for &(c, r) in &cells(k) {
                    covered |= sym.apply(Bitboard::from(Square::at(c, r).unwrap()), 8).0;
                }
            }
        }
        assert_eq!(covered, !0);
    }
}
