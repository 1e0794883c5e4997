// The network's input planes, exactly as othello-zero encodes a position (the export's model card, `input`): six
// planes of 8x8 floats in input order (row-major from a1), the position seen from the side to move.

import { boardMask, legalMoves } from './rules.js';

export const PLANES = ['own', 'opponent', 'legal', 'board', 'own_stable', 'opponent_stable'];

/** The planes of one position: a Float32Array of 6 * 64. */
export function encode(rules, pos, out = new Float32Array(PLANES.length * 64), offset = 0) {
  const stable = rules.size === 8;
  const planes = [
    pos.player,
    pos.opponent,
    legalMoves(rules, pos),
    boardMask(rules),
    stable ? stableDiscs(pos.player, pos.opponent) : 0n,
    stable ? stableDiscs(pos.opponent, pos.player) : 0n,
  ];
  planes.forEach((plane, p) => out.set(bitsOf(plane), offset + p * 64));
  return out;
}

// Stable discs on 8x8, as the model card's `stable_discs` says: the edges exactly, by every sequence of placements
// along each edge line, then grown to a fixed point along the four axes.

/** A bitboard's squares as 0 and 1, through its two 32-bit halves: a BigInt shift per square costs far more. */
function bitsOf(b) {
  const out = new Uint8Array(64);
  const halves = [Number(b & 0xffffffffn), Number((b >> 32n) & 0xffffffffn)];
  for (let sq = 0; sq < 64; sq++) out[sq] = (halves[sq >> 5] >>> (sq & 31)) & 1;
  return out;
}

/** The bitboard of 64 squares given as 0 and 1. */
function fromBits(bits) {
  const halves = [0, 0];
  bits.forEach((b, sq) => {
    if (b) halves[sq >> 5] |= 1 << (sq & 31);
  });
  return BigInt(halves[0] >>> 0) | (BigInt(halves[1] >>> 0) << 32n);
}

/** What `mine` flips on a line of 8 squares (bit i = square i) by playing square `sq`. */
function lineFlips(mine, theirs, sq) {
  let flipped = 0;
  for (const step of [1, -1]) {
    let line = 0;
    let i = sq + step;
    while (i >= 0 && i < 8 && (theirs >> i) & 1) {
      line |= 1 << i;
      i += step;
    }
    if (i >= 0 && i < 8 && (mine >> i) & 1) flipped |= line;
  }
  return flipped;
}

let edgeTable = null;
/** For every line (mine | theirs << 8), the discs of mine no placements on the line can flip. */
function edgeStable() {
  if (edgeTable) return edgeTable;
  const table = new Uint8Array(1 << 16);
  const lines = [];
  for (let m = 0; m < 256; m++) for (let t = 0; t < 256; t++) if (!(m & t)) lines.push([m, t]);
  const count = (x) => x.toString(2).replace(/0/g, '').length;
  lines.sort((a, b) => count(b[0] | b[1]) - count(a[0] | a[1])); // fuller lines first: a placement adds a disc
  for (const [m, t] of lines) {
    let stable = m;
    for (let sq = 0; sq < 8; sq++) {
      if (((m | t) >> sq) & 1) continue;
      let f = lineFlips(m, t, sq); // mine placed: mine stay mine
      stable &= table[(m | f | (1 << sq)) | ((t & ~f) << 8)];
      f = lineFlips(t, m, sq); // theirs placed: mine lose the flipped ones
      stable &= ~f & table[(m & ~f) | ((t | f | (1 << sq)) << 8)];
    }
    table[m | (t << 8)] = stable;
  }
  edgeTable = table;
  return table;
}

const EDGES = [
  [0, 1, 2, 3, 4, 5, 6, 7], // row 1
  [56, 57, 58, 59, 60, 61, 62, 63], // row 8
  [0, 8, 16, 24, 32, 40, 48, 56], // column a
  [7, 15, 23, 31, 39, 47, 55, 63], // column h
];
const AXES = [[0, 1], [1, 0], [1, 1], [1, -1]];

/** The squares of the line through (row, col) along (dr, dc), edge to edge. */
function lineThrough(row, col, [dr, dc]) {
  const out = [];
  let [r, c] = [row, col];
  while (r - dr >= 0 && r - dr < 8 && c - dc >= 0 && c - dc < 8) [r, c] = [r - dr, c - dc];
  for (; r >= 0 && r < 8 && c >= 0 && c < 8; r += dr, c += dc) out.push(r * 8 + c);
  return out;
}
const LINES = Array.from({ length: 64 }, (_, sq) => AXES.map((axis) => lineThrough(Math.floor(sq / 8), sq % 8, axis)));

/** The stable discs of `mine` on a full 8x8 board (`theirs` the other discs). */
export function stableDiscs(mine, theirs) {
  const table = edgeStable();
  const stable = new Uint8Array(64);
  const [mineBits, theirBits] = [bitsOf(mine), bitsOf(theirs)];
  for (const line of EDGES) {
    let [m, t] = [0, 0];
    line.forEach((sq, i) => {
      m |= mineBits[sq] << i;
      t |= theirBits[sq] << i;
    });
    const s = table[m | (t << 8)];
    line.forEach((sq, i) => {
      if ((s >> i) & 1) stable[sq] = 1;
    });
  }
  const inner = [];
  for (let sq = 0; sq < 64; sq++) {
    const [r, c] = [Math.floor(sq / 8), sq % 8];
    if (r > 0 && r < 7 && c > 0 && c < 7 && mineBits[sq]) inner.push(sq);
  }
  const occupied = (sq) => mineBits[sq] | theirBits[sq];
  const full = LINES.map((axes) => axes.map((line) => line.every(occupied)));
  for (let grown = true; grown; ) {
    grown = false;
    for (const sq of inner) {
      if (stable[sq]) continue;
      const held = AXES.every(([dr, dc], a) => full[sq][a] || stable[sq - (dr * 8 + dc)] || stable[sq + dr * 8 + dc]);
      if (held) stable[sq] = grown = 1;
    }
  }
  return fromBits(stable);
}
