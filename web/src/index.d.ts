// Types of othello-zero's JavaScript module (src/index.js). Boards are BigInt bitboards: bit `row * 8 + col`, a1 = 0,
// h8 = 63, on every board size (a 6x6 board uses rows and columns 0-5).

export type Colour = 'black' | 'white';

/** A square 0-63, or PASS (64). */
export type Move = number;

/** The pass, in every function: `search` returns it, `play` takes it, `squareName(PASS)` is `'pass'`. */
export declare const PASS: 64;

/** A position: the discs of the side to move, the other side's, and which side moves. */
export interface Position {
  player: bigint;
  opponent: bigint;
  side: Colour;
}

/** Rules, as `parseRules` reads them from othello-zero's rules string. */
export interface Rules {
  size: 4 | 6 | 8;
  start: 'standard' | 'mirrored' | 'empty' | Position;
  first: Colour;
  passing: boolean;
  scoring: 'discs' | 'empties';
  objective: 'most' | 'fewest';
}

export type Status = 'moves' | 'pass' | 'over';

export interface Outcome {
  black: number;
  white: number;
  /** null: a draw. */
  winner: Colour | null;
}

export declare function parseRules(text: string): Rules;
export declare function boardMask(rules: Rules): bigint;
export declare function centre(rules: Rules): bigint;
export declare function startPosition(rules: Rules): Position;
export declare function legalMoves(rules: Rules, pos: Position): bigint;
export declare function status(rules: Rules, pos: Position): Status;
/** Plays a move, refusing what the rules do not allow. */
export declare function play(rules: Rules, pos: Position, move: Move): Position;
/** Plays a square known to be legal, unchecked. */
export declare function playLegal(rules: Rules, pos: Position, square: number): Position;
export declare function passed(pos: Position): Position;
export declare function outcome(rules: Rules, pos: Position): Outcome;
/** Leaves after `depth` plies, a forced pass counted as a ply. */
export declare function perft(rules: Rules, pos: Position, depth: number): number;

export declare function moveMask(player: bigint, opponent: bigint): bigint;
export declare function flips(player: bigint, opponent: bigint, square: number): bigint;
export declare function popcount(b: bigint): number;
/** The squares of a bitboard, in order. */
export declare function squares(b: bigint): number[];

/** `d3`, or `pass` for PASS. */
export declare function squareName(move: Move): string;
/** A square from its name, or null. */
export declare function parseSquare(name: string): number | null;
/** A transcript's moves (`f5d6`, `f5 d6`, `1. f5 2. d6`, passes as `pass`). */
export declare function parseTranscript(text: string): Move[];
/** Every position of a transcript from the rules' start, forced passes inserted. */
export declare function replay(rules: Rules, text: string): Position[];
/** A board string (`X`, `O`, `-` row by row, then the side to move) and its board size. */
export declare function parseBoard(text: string): { position: Position; size: 4 | 6 | 8 };
export declare function boardString(pos: Position, size: number): string;
export declare function fromColours(black: bigint, white: bigint, side: Colour): Position;
export declare function blackDiscs(pos: Position): bigint;
export declare function whiteDiscs(pos: Position): bigint;

/** The network's input planes, in order. */
export declare const PLANES: readonly string[];
/** The planes of one position (6 x 64 floats) written into `out` at `offset`. */
export declare function encode(rules: Rules, pos: Position, out?: Float32Array, offset?: number): Float32Array;
/** The stable discs of `mine` on a full 8x8 board. */
export declare function stableDiscs(mine: bigint, theirs: bigint): bigint;

/** A position's evaluation for its side to move. */
export interface Evaluation {
  /** The move's probability over the legal moves (the pass alone where there is none). */
  priors: Map<Move, number>;
  /** In [-1, 1]. */
  value: number;
  /** The expected final disc margin. */
  margin: number;
}

/** The export's model-card.json (the fields the module reads; the card has more). */
export interface ModelCard {
  format: 'othello-zero network';
  rules: string;
  architecture: { blocks: number; filters: number; [key: string]: unknown };
  training: { step: number; [key: string]: unknown };
  [key: string]: unknown;
}

/** onnxruntime-web or onnxruntime-node: the parts the module uses. */
export interface OnnxRuntime {
  InferenceSession: { create(model: Uint8Array): Promise<unknown> };
  Tensor: new (type: 'float32', data: Float32Array, dims: number[]) => unknown;
}

export declare class Network {
  static fromBytes(ort: OnnxRuntime, card: ModelCard, onnxBytes: Uint8Array): Promise<Network>;
  static fromUrl(ort: OnnxRuntime, base: string): Promise<Network>;
  readonly card: ModelCard;
  readonly rules: Rules;
  evaluate(positions: Position[], rules?: Rules): Promise<Evaluation[]>;
}

/** Anything that evaluates positions as `Network` does (a wrapper that queues or caches, say). */
export interface Evaluator {
  evaluate(positions: Position[], rules?: Rules): Promise<Evaluation[]>;
}

export interface SearchOptions {
  /** Network evaluations, at least 1 (default 200). */
  sims?: number;
  /** Gumbel AlphaZero's root over this many moves; 0 (the default) is PUCT. */
  gumbel?: number;
  /** PUCT's exploration constant (default 1.5). */
  cpuct?: number;
  fpuReduction?: number;
  /** Give the event loop a turn every this many milliseconds. */
  yieldMs?: number | null;
  /** Abandons the search: its promise rejects with the signal's reason. */
  signal?: AbortSignal | null;
  /** Leaves evaluated together, kept apart by virtual loss (default 1: one at a time). */
  batch?: number;
  /** Called every 32 simulations and at the end. */
  onProgress?: ((progress: { done: number; sims: number }) => void) | null;
}

export interface SearchChild {
  move: Move;
  prior: number;
  visits: number;
  /** The mover's mean value, null where unvisited. */
  q: number | null;
}

export interface SearchResult {
  move: Move;
  /** The move first, then by visits. */
  children: SearchChild[];
  value: number;
  margin: number;
}

export interface Solved {
  /** The side to move's final margin with perfect play (under `reverse`, positive is a win too). */
  score: number;
  /** Every move that reaches it; [PASS] where the side must pass. */
  best: Move[];
  nodes: number;
}

/** The exact result with at most `maxEmpties` (default 14) empty squares; null beyond, or in Reversi's opening. */
export declare function solve(rules: Rules, pos: Position, options?: { maxEmpties?: number }): Solved | null;

export declare function search(net: Evaluator, rules: Rules, pos: Position, options?: SearchOptions): Promise<SearchResult>;
