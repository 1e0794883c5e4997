//! A pattern evaluation: the expected final disc difference of a position for the side to move, as a sum of one
//! weight per board region (46 edges, corners, lines and diagonals, the patterns of Logistello and Edax), one weight
//! set per phase (a band of empties).
//!
//! The weights are fitted on the WTHOR database by [`fit`] (`othello-zero fit-eval`) and ship with the crate
//! (`weights.bin`, format in [`EvalWeights::from_bytes`]). The solver orders its moves with it, carrying a
//! [`PatternState`] that each move updates rather than reading the patterns anew.

pub mod fit;
pub mod label;

use std::sync::OnceLock;

use thiserror::Error;

use crate::kernel::Kernel;
use crate::symmetry::{mirror_columns, transpose};
use crate::{Square, Symmetry};

/// Weights are stored in units of 1/SCALE disc.
pub const SCALE: i32 = 32;
/// A phase is a band of this many empties.
pub const PHASE_WIDTH: u32 = 4;
/// Phases 0..PHASES cover 0 to 63 empties.
pub const PHASES: usize = 16;

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
const OFFSETS: [u32; 12] = offsets();
/// Weights per phase: every configuration of every kind, then one constant (the phase's bias).
pub const WEIGHTS_PER_PHASE: usize = OFFSETS[11] as usize + 1;
const BIAS: usize = WEIGHTS_PER_PHASE - 1;

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
fn ternaries(x: u64) -> Lanes {
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
const LANES: usize = 48;

/// A number per pattern instance.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C, align(32))]
pub struct Lanes([u16; LANES]);

impl Lanes {
    // Plain loops: with the solver's target features each compiles to three 256-bit operations.
    #[inline(always)]
    fn add(&mut self, other: &Lanes) {
        for (a, b) in self.0.iter_mut().zip(other.0) {
            *a += b;
        }
    }
    #[inline(always)]
    fn sub(&mut self, other: &Lanes) {
        for (a, b) in self.0.iter_mut().zip(other.0) {
            *a -= b;
        }
    }
}

/// Each instance's kind offset, in the order of [`features`].
const BASES: [u32; FEATURES] = {
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

/// A position's pattern instances as the two sides' ternary numbers, which a move updates by additions (Edax's
/// incremental evaluation): the solver's ordering searches carry it down instead of reading every pattern anew at
/// each leaf.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PatternState {
    mover: Lanes,
    opponent: Lanes,
}

impl PatternState {
    pub fn new(p: u64, o: u64) -> PatternState {
        PatternState { mover: ternaries(p), opponent: ternaries(o) }
    }

    /// The same position with the other side to move (a pass).
    pub fn passed(&self) -> PatternState {
        PatternState { mover: self.opponent, opponent: self.mover }
    }

    /// What [`CompactWeights::evaluate_child`] starts from: the indices of any child, less its move's changes
    /// (the opponent's number plus twice the mover's, the roles as they will be after the move).
    #[inline(always)]
    pub fn children_base(&self) -> Lanes {
        let mut base = self.opponent;
        base.add(&self.mover);
        base.add(&self.mover);
        base
    }
}

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

/// The phase of a position with `empties` empty squares.
#[inline(always)]
pub fn phase(empties: u32) -> usize {
    (empties / PHASE_WIDTH).min(PHASES as u32 - 1) as usize
}

/// The phase of an 8x8 position.
#[inline(always)]
pub fn position_phase(p: u64, o: u64) -> usize {
    phase(64 - (p | o).count_ones())
}

#[derive(Debug, Error, PartialEq, Eq)]
pub enum EvalError {
    #[error("not an evaluation weights file (no OZEV header)")]
    Magic,
    #[error("weights format version {0}; this build reads version {VERSION}")]
    Version(u16),
    #[error("the weights were made for {found} weights per phase; this build has {WEIGHTS_PER_PHASE}")]
    Shape { found: u32 },
    #[error("the weights end early, in phase {phase}")]
    Truncated { phase: usize },
    #[error("{0} bytes after the last phase")]
    Trailing(usize),
}

const MAGIC: &[u8; 4] = b"OZEV";
const VERSION: u16 = 1;
/// A stored i16 with this value is followed by a u16 count of zero weights.
const ZERO_RUN: i16 = i16::MIN;

/// Fitted weights: `PHASES` phases of `WEIGHTS_PER_PHASE` weights, each in 1/[`SCALE`] disc.
#[derive(Clone, Debug, PartialEq)]
pub struct EvalWeights {
    weights: Vec<i16>,
}

impl EvalWeights {
    pub fn zero() -> EvalWeights {
        EvalWeights { weights: vec![0; PHASES * WEIGHTS_PER_PHASE] }
    }

    /// The weights that ship with the crate (fitted on WTHOR; docs/BENCHMARKS.md says how).
    pub fn builtin() -> &'static EvalWeights {
        static BUILTIN: OnceLock<EvalWeights> = OnceLock::new();
        BUILTIN.get_or_init(|| {
            EvalWeights::from_bytes(include_bytes!("weights.bin")).expect("the shipped weights match this build")
        })
    }

    pub fn phase_weights(&self, phase: usize) -> &[i16] {
        &self.weights[phase * WEIGHTS_PER_PHASE..(phase + 1) * WEIGHTS_PER_PHASE]
    }

    pub fn phase_weights_mut(&mut self, phase: usize) -> &mut [i16] {
        &mut self.weights[phase * WEIGHTS_PER_PHASE..(phase + 1) * WEIGHTS_PER_PHASE]
    }

    /// The expected final disc difference for `p`, the side to move, in 1/[`SCALE`] disc.
    pub fn evaluate(&self, p: u64, o: u64) -> i32 {
        self.evaluate_with::<crate::kernel::portable::Portable>(p, o)
    }

    /// [`EvalWeights::evaluate`] with a kernel's primitives (the solver's search is compiled once per kernel).
    #[inline(always)]
    pub fn evaluate_with<K: Kernel>(&self, p: u64, o: u64) -> i32 {
        weighted_sum::<K, _>(self.phase_weights(position_phase(p, o)), p, o)
    }

    /// The weights in 1/4 disc as i8 (rounded; saturated beyond +-32 discs), for the solver's move ordering.
    pub fn compact(&self) -> CompactWeights {
        let half = 1 << (COMPACT_SHIFT - 1);
        let mut weights = vec![0i8; PHASES * COMPACT_STRIDE];
        for phase in 0..PHASES {
            let out = &mut weights[phase * COMPACT_STRIDE..][..WEIGHTS_PER_PHASE];
            for (c, &w) in out.iter_mut().zip(self.phase_weights(phase)) {
                *c = ((w as i32 + half) >> COMPACT_SHIFT).clamp(-128, 127) as i8;
            }
        }
        let mut digits = Box::new([Lanes([0; LANES]); 64]);
        for (sq, d) in digits.iter_mut().enumerate() {
            *d = ternaries(1 << sq);
        }
        CompactWeights { weights, digits }
    }

    /// The file format: `OZEV`, u16 version, u32 weights per phase, u8 phases, then the weights of each phase as
    /// little-endian i16, where -32768 is followed by a u16 count of zeros (most configurations never occur).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        out.extend(VERSION.to_le_bytes());
        out.extend((WEIGHTS_PER_PHASE as u32).to_le_bytes());
        out.push(PHASES as u8);
        for phase in 0..PHASES {
            let w = self.phase_weights(phase);
            let mut i = 0;
            while i < w.len() {
                let run = w[i..].iter().take(u16::MAX as usize).take_while(|&&v| v == 0).count();
                if run > 2 {
                    out.extend(ZERO_RUN.to_le_bytes());
                    out.extend((run as u16).to_le_bytes());
                    i += run;
                } else {
                    out.extend(w[i].max(ZERO_RUN + 1).to_le_bytes());
                    i += 1;
                }
            }
        }
        out
    }

    pub fn from_bytes(bytes: &[u8]) -> Result<EvalWeights, EvalError> {
        if bytes.len() < 11 || &bytes[..4] != MAGIC {
            return Err(EvalError::Magic);
        }
        let version = u16::from_le_bytes([bytes[4], bytes[5]]);
        if version != VERSION {
            return Err(EvalError::Version(version));
        }
        let found = u32::from_le_bytes([bytes[6], bytes[7], bytes[8], bytes[9]]);
        if found as usize != WEIGHTS_PER_PHASE || bytes[10] as usize != PHASES {
            return Err(EvalError::Shape { found });
        }
        let mut weights = Vec::with_capacity(PHASES * WEIGHTS_PER_PHASE);
        let mut rest = &bytes[11..];
        let next = |rest: &mut &[u8]| -> Option<i16> {
            let (v, tail) = rest.split_first_chunk::<2>()?;
            *rest = tail;
            Some(i16::from_le_bytes(*v))
        };
        for phase in 0..PHASES {
            let end = (phase + 1) * WEIGHTS_PER_PHASE;
            while weights.len() < end {
                match next(&mut rest).ok_or(EvalError::Truncated { phase })? {
                    ZERO_RUN => {
                        let run = next(&mut rest).ok_or(EvalError::Truncated { phase })? as u16 as usize;
                        if weights.len() + run > end {
                            return Err(EvalError::Truncated { phase });
                        }
                        weights.resize(weights.len() + run, 0);
                    }
                    v => weights.push(v),
                }
            }
        }
        if !rest.is_empty() {
            return Err(EvalError::Trailing(rest.len()));
        }
        Ok(EvalWeights { weights })
    }
}

/// [`CompactWeights`] hold each weight divided by 2^COMPACT_SHIFT: in 1/4 disc.
const COMPACT_SHIFT: u32 = 3;
/// [`CompactWeights`]' phases start this far apart, a power of two, so that a feature masked by `INDEX_MASK`
/// provably lies within its phase and the 46 lookups need no bounds checks (the padding is never read).
const COMPACT_STRIDE: usize = WEIGHTS_PER_PHASE.next_power_of_two();
const INDEX_MASK: usize = COMPACT_STRIDE - 1;

/// [`EvalWeights`] in half the bytes: the three phases that the solver's move ordering visits then nearly fit in
/// a 512 KB L2 cache, where the loads of the weights were most of the evaluation's time. Rounding costs at most 1/8
/// disc per weight, far below the evaluation's own error (the shipped weights stay within +-18 discs, +-72 here).
pub struct CompactWeights {
    weights: Vec<i8>,
    /// Per square, the value of a mover's disc there in each instance's index: a power of three in the instances
    /// holding the square, 0 elsewhere. The indices of a position are the sum over the mover's discs plus twice the
    /// sum over the opponent's, which is what lets [`PatternState`] be updated by additions.
    digits: Box<[Lanes; 64]>,
}

impl CompactWeights {
    /// The shipped weights, compacted once.
    pub fn builtin() -> &'static CompactWeights {
        static BUILTIN: OnceLock<CompactWeights> = OnceLock::new();
        BUILTIN.get_or_init(|| EvalWeights::builtin().compact())
    }

    /// [`EvalWeights::evaluate_with`] in the same units (1/[`SCALE`] disc).
    #[inline(always)]
    pub fn evaluate_with<K: Kernel>(&self, p: u64, o: u64) -> i32 {
        let phase = position_phase(p, o);
        weighted_sum::<K, _>(&self.weights[phase * COMPACT_STRIDE..][..COMPACT_STRIDE], p, o) << COMPACT_SHIFT
    }

    /// The digit vector of a square (masked: no bounds check).
    #[inline(always)]
    fn digit(&self, sq: u32) -> &Lanes {
        &self.digits[sq as usize & 63]
    }

    /// The state of the child reached when the mover of `state` plays `sq`, flipping `flips` (roles swapped: the
    /// flipped discs leave the old opponent's number and join the old mover's, with the new disc).
    #[inline(always)]
    pub fn play(&self, state: &PatternState, sq: u32, flips: u64) -> PatternState {
        let mut child = state.passed();
        child.opponent.add(self.digit(sq));
        let mut rest = flips;
        while rest != 0 {
            let d = self.digit(rest.trailing_zeros());
            child.mover.sub(d);
            child.opponent.add(d);
            rest &= rest - 1;
        }
        child
    }

    /// [`CompactWeights::evaluate_with`] of the child reached when the mover of the position whose
    /// [`PatternState::children_base`] is `base` plays `sq`, flipping `flips`, for the child's side to move;
    /// `empties` is the child's count. The child's indices are the base plus the flipped discs once (each was the
    /// opponent's, counted twice, and is now the mover's) and the new disc twice (the opponent's in the child).
    #[inline(always)]
    pub fn evaluate_child(&self, base: &Lanes, sq: u32, flips: u64, empties: u32) -> i32 {
        let mut x = *base;
        x.add(self.digit(sq));
        x.add(self.digit(sq));
        let mut rest = flips;
        while rest != 0 {
            x.add(self.digit(rest.trailing_zeros()));
            rest &= rest - 1;
        }
        let w = &self.weights[phase(empties) * COMPACT_STRIDE..][..COMPACT_STRIDE];
        let sum =
            x.0.iter()
                .zip(BASES)
                .fold(w[BIAS] as i32, |sum, (&lane, base)| sum + w[(base + lane as u32) as usize & INDEX_MASK] as i32);
        sum << COMPACT_SHIFT
    }
}

/// The bias plus the weight of each pattern instance of the position, from one phase's weights.
#[inline(always)]
fn weighted_sum<K: Kernel, W: Copy + Into<i32>>(w: &[W], p: u64, o: u64) -> i32 {
    // Every feature is below WEIGHTS_PER_PHASE, so the mask changes no index.
    features_with::<K>(p, o).iter().fold(w[BIAS].into(), |sum, &f| sum + w[f as usize & INDEX_MASK].into())
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
    fn pattern_states_updated_move_by_move_match_the_positions_read_anew() {
        let compact = CompactWeights::builtin();
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(11);
        let mut children = 0;
        for _ in 0..300 {
            // A random walk of legal moves (passing when stuck) from a random position, the state carried along.
            let occ: u64 = rng.random::<u64>() & rng.random::<u64>() | 0x0000_0018_1800_0000;
            let mut p = occ & rng.random::<u64>();
            let mut o = occ & !p;
            let mut state = PatternState::new(p, o);
            for _ in 0..40 {
                assert_eq!(state, PatternState::new(p, o));
                let moves = Bitboard(crate::kernel::moves(p, o));
                if moves.is_empty() {
                    if crate::kernel::moves(o, p) == 0 {
                        break;
                    }
                    (p, o, state) = (o, p, state.passed());
                    continue;
                }
                // Every child evaluated from this node's base agrees with the child's own evaluation.
                let base = state.children_base();
                for sq in moves {
                    let f = crate::kernel::flips(p, o, sq.index() as u32);
                    let (cp, co) = (o ^ f, p | f | 1 << sq.index());
                    let empties = 64 - (cp | co).count_ones();
                    let expected = compact.evaluate_with::<Portable>(cp, co);
                    assert_eq!(compact.evaluate_child(&base, sq.index() as u32, f, empties), expected);
                    children += 1;
                }
                let sq = moves.nth(rng.random_range(0..moves.count())).expect("a legal move").index() as u32;
                let f = crate::kernel::flips(p, o, sq);
                state = compact.play(&state, sq, f);
                (p, o) = (o ^ f, p | f | 1 << sq);
            }
        }
        assert!(children > 10_000, "{children}");
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

    #[test]
    fn weights_round_trip_and_bad_files_are_refused() {
        let mut w = EvalWeights::zero();
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(1);
        for _ in 0..10_000 {
            let i = rng.random_range(0..w.weights.len());
            w.weights[i] = rng.random_range(-3000..3000);
        }
        let bytes = w.to_bytes();
        assert_eq!(EvalWeights::from_bytes(&bytes), Ok(w));
        assert_eq!(EvalWeights::from_bytes(&bytes[..bytes.len() - 1]), Err(EvalError::Truncated { phase: PHASES - 1 }));
        assert_eq!(EvalWeights::from_bytes(b"GARBAGE!!!!!"), Err(EvalError::Magic));
        let mut longer = bytes.clone();
        longer.extend([0, 0]);
        assert_eq!(EvalWeights::from_bytes(&longer), Err(EvalError::Trailing(2)));
    }

    #[test]
    fn compact_weights_stay_within_their_rounding_of_the_full_evaluation() {
        // No shipped weight saturates in i8 ...
        let full = EvalWeights::builtin();
        let limit = 127 << COMPACT_SHIFT;
        assert!(full.weights.iter().all(|&w| (w as i32).abs() <= limit), "a weight beyond +-{limit}");
        // ... so each of the 46 weights and the bias is off by at most half a step.
        let compact = CompactWeights::builtin();
        let bound = (FEATURES as i32 + 1) * (1 << (COMPACT_SHIFT - 1));
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(10);
        let mut differed = 0;
        for _ in 0..5_000 {
            let occ: u64 = rng.random::<u64>() | rng.random::<u64>();
            let p = occ & rng.random::<u64>();
            let (a, b) = (full.evaluate(p, occ & !p), compact.evaluate_with::<Portable>(p, occ & !p));
            assert!((a - b).abs() <= bound, "{a} against {b}");
            differed += (a != b) as u32;
        }
        // The rounding is real (the test would pass trivially with the full weights themselves).
        assert!(differed > 1_000, "{differed}");
    }
}
