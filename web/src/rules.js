// The rules of Othello and its variants over 64-bit bitboards (BigInt), as othello-zero's core has them: a board
// of 4x4, 6x6 or 8x8 squares is the top-left corner of the 8x8 bitboard, square index = 8 * row + column, a1 = 0
// (top-left), h8 = 63. A position is seen from the side to move: `player` and `opponent` discs, `side` the colour
// to move ('black' or 'white').

const FULL = (1n << 64n) - 1n;
const NOT_A = 0xfefefefefefefefen; // every column but a
const NOT_H = 0x7f7f7f7f7f7f7f7fn; // every column but h
// Each direction: its shift and the mask that drops discs which wrapped around a row's end.
const DIRECTIONS = [
  [1, NOT_A], [-1, NOT_H], [8, FULL], [-8, FULL],
  [9, NOT_A], [7, NOT_H], [-7, NOT_A], [-9, NOT_H],
].map(([shift, mask]) => [BigInt(shift), mask]);

const shift = (b, s) => (s > 0n ? (b << s) & FULL : b >> -s);

/** The empty squares where `player` flips at least one disc of `opponent`. */
export function moveMask(player, opponent) {
  let moves = 0n;
  for (const [s, mask] of DIRECTIONS) {
    let x = shift(player, s) & mask & opponent;
    for (let i = 0; i < 5; i++) x |= shift(x, s) & mask & opponent;
    moves |= shift(x, s) & mask;
  }
  return moves & ~(player | opponent) & FULL;
}

/** The discs of `opponent` that `player` flips by playing on square `sq`. */
export function flips(player, opponent, sq) {
  let flipped = 0n;
  const from = 1n << BigInt(sq);
  for (const [s, mask] of DIRECTIONS) {
    let line = 0n;
    let x = shift(from, s) & mask;
    while (x & opponent) {
      line |= x;
      x = shift(x, s) & mask;
    }
    if (x & player) flipped |= line;
  }
  return flipped;
}

export const popcount = (b) => {
  let n = 0;
  for (let x = b; x; x &= x - 1n) n++;
  return n;
};

/** The squares of a bitboard, lowest first. */
export function squares(b) {
  const out = [];
  for (let sq = 0; sq < 64; sq++) if ((b >> BigInt(sq)) & 1n) out.push(sq);
  return out;
}

/** The pass, as a move: one past the last square, the index the network's policy gives it, everywhere a move is. */
export const PASS = 64;

const COLUMNS = 'abcdefgh';
/** A move's name: a square's (`d3`), or `pass`. */
export const squareName = (sq) => (sq === PASS ? 'pass' : COLUMNS[sq % 8] + (Math.floor(sq / 8) + 1));

/** A square from its name (`d3`, either case), or null. */
export function parseSquare(name) {
  const m = /^([a-h])([1-8])$/i.exec(name.trim());
  return m ? (Number(m[2]) - 1) * 8 + COLUMNS.indexOf(m[1].toLowerCase()) : null;
}

const other = (colour) => (colour === 'black' ? 'white' : 'black');

/** A board string (`X` black, `O` white, `-` empty, row by row, then the side to move) and its size. */
export function parseBoard(text) {
  const cells = [...text.trim().replace(/;$/, '')].filter((c) => !/\s/.test(c));
  const size = { 65: 8, 37: 6, 17: 4 }[cells.length];
  if (!size) throw new Error(`a board string has 16, 36 or 64 squares and the side to move, not ${cells.length} characters`);
  let black = 0n;
  let white = 0n;
  for (let i = 0; i < size * size; i++) {
    const bit = 1n << BigInt(Math.floor(i / size) * 8 + (i % size));
    const c = cells[i];
    if ('XxBb*'.includes(c)) black |= bit;
    else if ('OoWw'.includes(c)) white |= bit;
    else if (!'-._'.includes(c)) throw new Error(`board square ${i + 1}: '${c}' is not X, O or -`);
  }
  const last = cells[size * size];
  const side = 'XxBb*'.includes(last) ? 'black' : 'OoWw'.includes(last) ? 'white' : null;
  if (!side) throw new Error(`the side to move is X or O, not '${last}'`);
  return { position: fromColours(black, white, side), size };
}

export function fromColours(black, white, side) {
  return side === 'black' ? { player: black, opponent: white, side } : { player: white, opponent: black, side };
}

export const blackDiscs = (pos) => (pos.side === 'black' ? pos.player : pos.opponent);
export const whiteDiscs = (pos) => (pos.side === 'black' ? pos.opponent : pos.player);

/** The board string of a position, as othello-zero prints it. */
export function boardString(pos, size) {
  const [black, white] = [blackDiscs(pos), whiteDiscs(pos)];
  let s = '';
  for (let row = 0; row < size; row++) {
    for (let col = 0; col < size; col++) {
      const bit = 1n << BigInt(row * 8 + col);
      s += black & bit ? 'X' : white & bit ? 'O' : '-';
    }
  }
  return `${s} ${pos.side === 'black' ? 'X' : 'O'}`;
}

/**
 * Rules from their string, as the model card's `rules` names them: a preset first (`othello`, or
 * `traditional`/`reversi`), then a size (`4x4`, `6x6`, `8x8`), `reverse`, `empties`, a start (`mirror`,
 * `empty-start`, `start=BOARD`), `white-first`/`black-first`, `pass`/`no-pass`. Two items setting one thing
 * differently are refused.
 */
export function parseRules(text) {
  if (!text || !text.trim()) throw new Error('no rules given');
  const othello = { size: 8, start: 'standard', first: 'black', passing: true, scoring: 'discs', objective: 'most' };
  let rules = { ...othello };
  const given = new Map();
  text.split(',').map((p) => p.trim()).forEach((part, i) => {
    const word = part.toLowerCase();
    if (['othello', 'standard', 'traditional', 'reversi'].includes(word)) {
      if (i > 0) throw new Error(`the preset '${part}' must come first`);
      const traditional = word === 'traditional' || word === 'reversi';
      rules = traditional ? { ...othello, start: 'empty', first: 'white', passing: false } : { ...othello };
      return;
    }
    const set = {};
    if (['reverse', 'misere', 'anti'].includes(word)) set.objective = 'fewest';
    else if (['empties', 'empties-to-winner'].includes(word)) set.scoring = 'empties';
    else if (['mirror', 'mirrored'].includes(word)) set.start = 'mirrored';
    else if (word === 'empty-start') set.start = 'empty';
    else if (word === 'white-first') set.first = 'white';
    else if (word === 'black-first') set.first = 'black';
    else if (word === 'no-pass') set.passing = false;
    else if (word === 'pass') set.passing = true;
    else if (/^(\d)x\1$|^size=\d$/.test(word)) set.size = Number(word.match(/\d/)[0]);
    else if (word.startsWith('start=')) {
      const { position, size } = parseBoard(part.slice('start='.length));
      Object.assign(set, { start: position, size });
    } else throw new Error(`unknown rule '${part}'`);
    if (set.size !== undefined && ![4, 6, 8].includes(set.size)) throw new Error(`board size ${set.size}: 4, 6 or 8`);
    for (const [key, value] of Object.entries(set)) {
      const same = JSON.stringify(value, bigints) === JSON.stringify(rules[key], bigints);
      if (given.has(key) && !same) throw new Error(`'${given.get(key)}' and '${part}' contradict each other`);
      if (!given.has(key)) given.set(key, part);
      rules[key] = value;
    }
  });
  if (startPosition(rules).player & ~boardMask(rules) || startPosition(rules).opponent & ~boardMask(rules)) {
    throw new Error(`the start position does not fit a ${rules.size}x${rules.size} board`);
  }
  return rules;
}
const bigints = (_, v) => (typeof v === 'bigint' ? v.toString() : v);

/** The squares of the rules' board. */
export function boardMask(rules) {
  const row = (1n << BigInt(rules.size)) - 1n;
  let mask = 0n;
  for (let r = 0; r < rules.size; r++) mask |= row << BigInt(8 * r);
  return mask;
}

/** The four centre squares. */
export function centre(rules) {
  const c = BigInt(rules.size / 2 - 1);
  const a = 1n << (c * 8n + c);
  return a | (a << 1n) | (a << 8n) | (a << 9n);
}

export function startPosition(rules) {
  if (typeof rules.start === 'object') return rules.start;
  const c = rules.size / 2 - 1;
  const sq = (col, row) => 1n << BigInt(row * 8 + col);
  const diagonal = sq(c, c) | sq(c + 1, c + 1); // d4, e5 on 8x8
  const anti = sq(c, c + 1) | sq(c + 1, c); // d5, e4
  if (rules.start === 'standard') return fromColours(anti, diagonal, rules.first);
  if (rules.start === 'mirrored') return fromColours(diagonal, anti, rules.first);
  return fromColours(0n, 0n, rules.first);
}

/** Whether the discs are still being placed on the centre (traditional Reversi's first four moves). */
const inOpening = (rules, pos) => rules.start === 'empty' && ((pos.player | pos.opponent) & centre(rules)) !== centre(rules);

export function legalMoves(rules, pos) {
  if (inOpening(rules, pos)) return centre(rules) & ~(pos.player | pos.opponent);
  return moveMask(pos.player, pos.opponent) & boardMask(rules);
}

export const passed = (pos) => ({ player: pos.opponent, opponent: pos.player, side: other(pos.side) });

/** 'moves', 'pass' (no move, the opponent has one) or 'over'. */
export function status(rules, pos) {
  if (legalMoves(rules, pos)) return 'moves';
  if (rules.passing && legalMoves(rules, passed(pos))) return 'pass';
  return 'over';
}

/** Plays a square known to be legal. */
export function playLegal(rules, pos, sq) {
  const bit = 1n << BigInt(sq);
  const flipped = inOpening(rules, pos) ? 0n : flips(pos.player, pos.opponent, sq);
  return { player: pos.opponent & ~flipped, opponent: pos.player | flipped | bit, side: other(pos.side) };
}

/** Plays a move (a square, or PASS), refusing what the rules do not allow. */
export function play(rules, pos, move) {
  const state = status(rules, pos);
  if (state === 'over') throw new Error('the game is over');
  if (move === PASS) {
    if (state !== 'pass') throw new Error(`${pos.side} may not pass: it has a move`);
    return passed(pos);
  }
  if (!Number.isInteger(move) || move < 0 || move > 63) throw new Error(`${move} is not a move: a square 0-63 or PASS`);
  if (state !== 'moves' || !((legalMoves(rules, pos) >> BigInt(move)) & 1n)) {
    throw new Error(`${squareName(move)} is not a legal move for ${pos.side}`);
  }
  return playLegal(rules, pos, move);
}

/** The score of a position taken as final: disc counts as the rules score them, and the winner (null: a draw). */
export function outcome(rules, pos) {
  const b = popcount(blackDiscs(pos));
  const w = popcount(whiteDiscs(pos));
  let winner = null;
  if (b !== w) winner = (b > w) === (rules.objective === 'most') ? 'black' : 'white';
  let [black, white] = [b, w];
  if (rules.scoring === 'empties') {
    const empties = rules.size * rules.size - b - w;
    const toBlack = (winner === 'black') === (rules.objective === 'most');
    if (winner === null) [black, white] = [b + Math.floor(empties / 2), w + empties - Math.floor(empties / 2)];
    else if (toBlack) black += empties;
    else white += empties;
  }
  return { black, white, winner };
}

/** A transcript's moves: squares (`f5d6`, `f5 d6`, `F5-D6`, `1. f5 2. d6`) and passes (`pass`, `pa`, `ps`, `--`: PASS). */
export function parseTranscript(text) {
  const moves = [];
  const tokens = text.match(/pass|pa|ps|--|[a-h][1-8]|\S/gi) || [];
  for (const token of tokens) {
    const lower = token.toLowerCase();
    if (['pass', 'pa', 'ps', '--'].includes(lower)) moves.push(PASS);
    else if (/^[a-h][1-8]$/.test(lower)) moves.push(parseSquare(lower));
    else if (!/[,;.\-0-9]/.test(token)) throw new Error(`'${token}' is not a move`); // move numbers, separators
  }
  return moves;
}

/** Plays a transcript from the rules' start, inserting the forced passes it left out: every position, in order. */
export function replay(rules, text) {
  let pos = startPosition(rules);
  const positions = [pos];
  parseTranscript(text).forEach((move, i) => {
    if (move !== PASS && status(rules, pos) === 'pass') {
      pos = passed(pos);
      positions.push(pos);
    }
    try {
      pos = play(rules, pos, move);
    } catch (e) {
      throw new Error(`move ${i + 1} (${squareName(move)}): ${e.message}`);
    }
    positions.push(pos);
  });
  return positions;
}

/** Leaves after `depth` plies, a forced pass counted as a ply and ended games not counted (OEIS A124004). */
export function perft(rules, pos, depth) {
  if (depth === 0) return 1;
  const moves = legalMoves(rules, pos);
  if (!moves) {
    return rules.passing && legalMoves(rules, passed(pos)) ? perft(rules, passed(pos), depth - 1) : 0;
  }
  let total = 0;
  for (const sq of squares(moves)) total += perft(rules, playLegal(rules, pos, sq), depth - 1);
  return total;
}
