// The JavaScript rules against published perft counts and against othello-zero's own rules.

import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

import { outcome, parseRules, perft, replay, startPosition, boardString } from '../src/rules.js';
import { othelloZero, random, randomGame, REPO } from './helpers.js';

test('8x8 perft matches the published counts (OEIS A124004) through depth 9', () => {
  const table = readFileSync(join(REPO, 'data', 'perft.txt'), 'utf8');
  const published = new Map(
    table.split('\n').filter((l) => /^\d/.test(l)).map((l) => l.split(/\s+/)).map(([n, count]) => [Number(n), Number(count)]),
  );
  const rules = parseRules('othello');
  for (let depth = 1; depth <= 9; depth++) {
    assert.equal(perft(rules, startPosition(rules), depth), published.get(depth), `depth ${depth}`);
  }
});

test('6x6 and 4x4 perft match othello-zero', () => {
  for (const [name, deepest] of [['othello,6x6', 8], ['othello,4x4', 12], ['traditional,6x6', 7]]) {
    const rules = parseRules(name);
    for (let depth = 1; depth <= deepest; depth++) {
      const reference = othelloZero(['perft', '--rules', name, '--convention', 'edges', String(depth)]);
      assert.equal(reference.status, 0, reference.stderr);
      assert.equal(perft(rules, startPosition(rules), depth), Number(reference.stdout.trim()), `${name} depth ${depth}`);
    }
  }
});

// Games with passes both written and left out, in every variant a model card can name.
const VARIANTS = [
  'othello', 'othello,6x6', 'othello,4x4', 'traditional', 'reversi,6x6,pass', 'reverse,empties',
  'othello,mirror,white-first', 'othello,6x6,no-pass', 'reverse,4x4,empties',
];

test('a few thousand random games end with othello-zero\'s final discs', () => {
  const dir = mkdtempSync(join(tmpdir(), 'othello-zero-web-'));
  let games = 0;
  VARIANTS.forEach((name, v) => {
    const rules = parseRules(name);
    const rng = random(1000 + v);
    const played = Array.from({ length: 400 }, (_, i) => randomGame(rules, rng, i % 2 === 0));
    const file = join(dir, `games-${v}.txt`);
    writeFileSync(file, played.map((g) => g.transcript).join('\n') + '\n');
    const reference = othelloZero(['replay', '--rules', name, '--file', file]);
    assert.equal(reference.status, 0, `${name}: ${reference.stderr}`);
    const lines = reference.stdout.trim().split('\n');
    assert.equal(lines.length, played.length, name);
    played.forEach((g, i) => {
      const { black, white } = outcome(rules, g.pos);
      assert.equal(`${black} ${white}`, lines[i], `${name}, game ${i + 1}: ${g.transcript}`);
      // Replaying the transcript reaches the same position.
      const positions = replay(rules, g.transcript);
      assert.equal(boardString(positions.at(-1), rules.size), boardString(g.pos, rules.size));
    });
    games += played.length;
  });
  assert.ok(games >= 3000, `${games} games`);
});

test('bad input is refused with a reason', () => {
  const rules = parseRules('othello');
  // Transcripts as othello-zero reads them: move numbers, separators, either case, passes written or left out.
  const same = boardString(replay(rules, 'f5d6c3').at(-1), 8);
  for (const text of ['f5 d6 c3', 'F5-D6-C3', '1. f5 2. d6 3. c3', '1.f5 2.d6 3.c3', 'f5,d6;c3']) {
    assert.equal(boardString(replay(rules, text).at(-1), 8), same, text);
  }
  assert.throws(() => replay(rules, 'f5 f5'), /move 2 \(f5\): f5 is not a legal move for white/);
  assert.throws(() => replay(rules, 'f5 pass'), /may not pass/);
  assert.throws(() => replay(rules, 'f5 z9'), /'z' is not a move/);
  assert.throws(() => parseRules('othello,5x5'), /unknown rule|board size/);
  assert.throws(() => parseRules('4x4,6x6'), /contradict/);
  assert.throws(() => parseRules('6x6,othello'), /must come first/);
  assert.throws(() => parseRules('othello,lunar'), /unknown rule 'lunar'/);
});
