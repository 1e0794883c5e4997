// The game record: the line of moves from a start position (passes written), how far along it the board stands,
// and what the network said of each position on it. Moving back keeps the moves ahead (redo); a move played
// from an earlier position replaces them.

import { PASS, boardString, parseBoard, parseTranscript, play, squareName, status } from './src/index.js';

export class GameRecord {
  constructor(rules, start) {
    this.rules = rules;
    this.positions = [start]; // positions[i] stands before line[i]
    this.line = [];
    this.cursor = 0; // moves of the line on the board
    this.analyses = []; // analyses[i]: the network's search of positions[i], where it moved from there
    this.values = []; // values[i]: black's winning chance at positions[i] as the network saw it, or exactly
    this.solved = []; // solved[i]: the exact result of positions[i], where it was small enough to solve
  }

  get position() {
    return this.positions[this.cursor];
  }

  get atEnd() {
    return this.cursor === this.line.length;
  }

  /** Plays `move` from the position shown, dropping the moves ahead of it. */
  play(move) {
    this.truncate();
    const pos = this.position;
    this.positions.push(play(this.rules, pos, move));
    this.line.push(move);
    this.cursor += 1;
  }

  /** Drops the moves ahead of the position shown. */
  truncate() {
    this.line.length = this.cursor;
    this.positions.length = this.cursor + 1;
    this.analyses.length = Math.min(this.analyses.length, this.cursor + 1);
    this.values.length = Math.min(this.values.length, this.cursor + 1);
    this.solved.length = Math.min(this.solved.length, this.cursor + 1);
  }

  goTo(index) {
    this.cursor = Math.max(0, Math.min(this.line.length, index));
  }

  /** The line as a transcript, passes written (`othello-zero replay` reads it). */
  transcript() {
    return this.line.map(squareName).join(' ');
  }

  /** The start as a board string, or null where the game starts from the rules' own start. */
  startBoard(standard) {
    const board = boardString(this.positions[0], this.rules.size);
    return board === boardString(standard, this.rules.size) ? null : board;
  }

  /**
   * A record from text: a transcript from `start`, or a board string (a position to play on). Forced passes a
   * transcript leaves out are written in; an illegal move is refused with its number.
   */
  static fromText(rules, start, text) {
    let board = null;
    try {
      board = parseBoard(text);
    } catch {
      // not a board: a transcript
    }
    if (board) {
      const [mine, theirs] = [board.size, rules.size];
      if (mine !== theirs) throw new Error(`the board is ${mine}x${mine}, the network plays ${theirs}x${theirs}`);
      return new GameRecord(rules, board.position);
    }
    const record = new GameRecord(rules, start);
    parseTranscript(text).forEach((move, i) => {
      if (move !== PASS && status(rules, record.position) === 'pass') record.play(PASS);
      try {
        record.play(move);
      } catch (e) {
        throw new Error(`move ${i + 1} (${squareName(move)}): ${e.message}`);
      }
    });
    return record;
  }
}
