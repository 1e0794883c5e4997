// An exact endgame solver small enough for a page: negamax with alpha-beta over the final score, moves with the
// fewest replies first. Bitboards are two 32-bit halves here (a BigInt operation costs far more than a number's),
// so that about 14 empties solve in a second or two. Scores are as othello-zero's `solve` prints them: the side to
// move's final margin under the rules' scoring (empties to the winner where the rules say so; under `reverse`,
// fewer discs is better).

import { PASS, boardMask, centre } from './rules.js';

const LO = 0xffffffffn;
const split = (b) => [Number(b & LO) >>> 0, Number((b >> 32n) & LO) >>> 0];
const popcount32 = (x) => {
  let v = x - ((x >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
};

// The eight directions: a shift (positive toward h8) and the mask that drops discs wrapped around a row's end.
const NOT_A = 0xfefefefe;
const NOT_H = 0x7f7f7f7f;
const FULL = 0xffffffff;
const DIRECTIONS = [[1, NOT_A], [-1, NOT_H], [8, FULL], [-8, FULL], [9, NOT_A], [7, NOT_H], [-7, NOT_A], [-9, NOT_H]];

// The shifted halves go through these two slots: no array is made per shift.
let sl = 0;
let sh = 0;
function shift(lo, hi, s) {
  if (s > 0) {
    sl = (lo << s) >>> 0;
    sh = ((hi << s) | (lo >>> (32 - s))) >>> 0;
  } else {
    const k = -s;
    sl = ((lo >>> k) | (hi << (32 - k))) >>> 0;
    sh = hi >>> k;
  }
}

const SHIFTS = DIRECTIONS.map(([shiftBy]) => shiftBy);
const MASKS = DIRECTIONS.map(([, mask]) => mask);

let ml = 0;
let mh = 0;
/**
 * The empty squares where the player flips something, into (ml, mh): the hottest function here, so each
 * direction's shifts are written out on local numbers.
 */
function moves(pl, ph, ol, oh) {
  let rl = 0;
  let rh = 0;
  for (let d = 0; d < 8; d++) {
    const s = SHIFTS[d];
    const mask = MASKS[d];
    let xl;
    let xh;
    if (s > 0) {
      const c = 32 - s;
      xl = (pl << s) & mask & ol;
      xh = ((ph << s) | (pl >>> c)) & mask & oh;
      for (let i = 0; i < 5; i++) {
        const tl = xl << s;
        const th = (xh << s) | (xl >>> c);
        xl |= tl & mask & ol;
        xh |= th & mask & oh;
      }
      rl |= (xl << s) & mask;
      rh |= ((xh << s) | (xl >>> c)) & mask;
    } else {
      const k = -s;
      const c = 32 - k;
      xl = ((pl >>> k) | (ph << c)) & mask & ol;
      xh = (ph >>> k) & mask & oh;
      for (let i = 0; i < 5; i++) {
        const tl = (xl >>> k) | (xh << c);
        const th = xh >>> k;
        xl |= tl & mask & ol;
        xh |= th & mask & oh;
      }
      rl |= ((xl >>> k) | (xh << c)) & mask;
      rh |= (xh >>> k) & mask;
    }
  }
  ml = (rl & ~(pl | ol)) >>> 0;
  mh = (rh & ~(ph | oh)) >>> 0;
}

let fl = 0;
let fh = 0;
/** The discs the player flips by playing square `sq`, into (fl, fh). */
function flips(pl, ph, ol, oh, sq) {
  let rl = 0;
  let rh = 0;
  const [bl, bh] = sq < 32 ? [(1 << sq) >>> 0, 0] : [0, (1 << (sq - 32)) >>> 0];
  for (const [s, mask] of DIRECTIONS) {
    let linel = 0;
    let lineh = 0;
    shift(bl, bh, s);
    let xl = sl & mask;
    let xh = sh & mask;
    while ((xl & ol) | (xh & oh)) {
      linel |= xl;
      lineh |= xh;
      shift(xl, xh, s);
      xl = sl & mask;
      xh = sh & mask;
    }
    if ((xl & pl) | (xh & ph)) {
      rl |= linel;
      rh |= lineh;
    }
  }
  fl = rl >>> 0;
  fh = rh >>> 0;
}

const squaresOf = (lo, hi) => {
  const out = [];
  for (let x = lo; x; x &= x - 1) out.push(31 - Math.clz32(x & -x));
  for (let x = hi; x; x &= x - 1) out.push(63 - Math.clz32(x & -x));
  return out;
};

class Solver {
  constructor(rules) {
    this.rules = rules;
    [this.bl, this.bh] = split(boardMask(rules));
    this.squares = rules.size * rules.size;
    this.nodes = 0;
  }

  /** The final score for the side to move, `m` and `t` its discs and the other side's. */
  final(m, t) {
    const { objective, scoring } = this.rules;
    const e = this.squares - m - t;
    // The empties go to the winner under `most`, to the loser under `fewest`: either way to the side with more.
    if (scoring === 'empties') {
      if (m === t) [m, t] = [m + Math.floor(e / 2), t + e - Math.floor(e / 2)];
      else if (m > t) m += e;
      else t += e;
    }
    return objective === 'most' ? m - t : t - m;
  }

  search(pl, ph, ol, oh, alpha, beta) {
    this.nodes += 1;
    moves(pl, ph, ol, oh);
    const [lo, hi] = [ml & this.bl, mh & this.bh];
    if (!(lo | hi)) {
      if (this.rules.passing) {
        moves(ol, oh, pl, ph);
        if ((ml & this.bl) | (mh & this.bh)) return -this.search(ol, oh, pl, ph, -beta, -alpha);
      }
      return this.final(popcount32(pl) + popcount32(ph), popcount32(ol) + popcount32(oh));
    }
    let best = -Infinity;
    if (this.squares - popcount32(pl | ol) - popcount32(ph | oh) <= 6) {
      // Near the end, ordering costs more than it saves: the squares in turn, nothing allocated.
      for (let half = 0; half < 2; half++) {
        for (let x = half ? hi : lo; x; x &= x - 1) {
          const sq = 31 - Math.clz32(x & -x) + 32 * half;
          flips(pl, ph, ol, oh, sq);
          const [bl, bh] = half ? [0, (1 << (sq - 32)) >>> 0] : [(1 << sq) >>> 0, 0];
          const [cpl, cph] = [(ol & ~fl) >>> 0, (oh & ~fh) >>> 0];
          const score = -this.search(cpl, cph, (pl | fl | bl) >>> 0, (ph | fh | bh) >>> 0, -beta, -alpha);
          if (score > best) best = score;
          if (score > alpha) alpha = score;
          if (alpha >= beta) return best;
        }
      }
      return best;
    }
    // Fewest replies first.
    const children = squaresOf(lo, hi).map((sq) => this.child(pl, ph, ol, oh, sq));
    for (const c of children) {
      moves(c[0], c[1], c[2], c[3]);
      c.push(popcount32(ml & this.bl) + popcount32(mh & this.bh));
    }
    children.sort((a, b) => a[4] - b[4]);
    for (const [cpl, cph, col, coh] of children) {
      const score = -this.search(cpl, cph, col, coh, -beta, -alpha);
      if (score > best) best = score;
      if (score > alpha) alpha = score;
      if (alpha >= beta) break;
    }
    return best;
  }

  /** The position after the player plays `sq`, seen from the opponent: [player lo, hi, opponent lo, hi]. */
  child(pl, ph, ol, oh, sq) {
    flips(pl, ph, ol, oh, sq);
    const [bl, bh] = sq < 32 ? [(1 << sq) >>> 0, 0] : [0, (1 << (sq - 32)) >>> 0];
    return [(ol & ~fl) >>> 0, (oh & ~fh) >>> 0, (pl | fl | bl) >>> 0, (ph | fh | bh) >>> 0];
  }
}

/**
 * The exact result of `pos` where it has at most `maxEmpties` empty squares (default 14): `{ score, best, nodes }`,
 * `score` the side to move's final margin, `best` every move that reaches it (PASS where the side must pass); null
 * beyond that, or while traditional Reversi's centre is still being filled.
 */
export function solve(rules, pos, { maxEmpties = 14 } = {}) {
  const occupied = pos.player | pos.opponent;
  if (rules.start === 'empty' && (occupied & centre(rules)) !== centre(rules)) return null;
  const solver = new Solver(rules);
  const [pl, ph] = split(pos.player);
  const [ol, oh] = split(pos.opponent);
  const empties = solver.squares - popcount32(pl) - popcount32(ph) - popcount32(ol) - popcount32(oh);
  if (empties > maxEmpties) return null;
  moves(pl, ph, ol, oh);
  const legal = squaresOf(ml & solver.bl, mh & solver.bh);
  const score = solver.search(pl, ph, ol, oh, -Infinity, Infinity);
  if (!legal.length) {
    moves(ol, oh, pl, ph);
    const pass = rules.passing && (ml & solver.bl) | (mh & solver.bh);
    return { score, best: pass ? [PASS] : [], nodes: solver.nodes };
  }
  // Each move tested against the best score in a window around it: equal, or proven lower.
  const best = legal.filter((sq) => {
    const [cpl, cph, col, coh] = solver.child(pl, ph, ol, oh, sq);
    return -solver.search(cpl, cph, col, coh, -score - 1, -score + 1) >= score;
  });
  return { score, best, nodes: solver.nodes };
}
