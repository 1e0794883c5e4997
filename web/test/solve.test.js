// The module's endgame solver against othello-zero's own (`solve`, every best move proven): positions of seeded
// random games with 4 to 12 empties, in Othello, on 6x6, with empties to the winner and under `reverse`.

import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

import { boardString, legalMoves, parseRules, passed, playLegal, popcount, solve, squareName, squares, startPosition, status } from '../src/index.js';
import { othelloZero, random } from './helpers.js';

/** Positions with a move and `empties` empty squares, one per seeded random game. */
function positions(rules, empties, count, seed) {
  const rng = random(seed);
  const out = [];
  while (out.length < count) {
    let pos = startPosition(rules);
    for (;;) {
      const state = status(rules, pos);
      if (state === 'over') break;
      if (state === 'pass') {
        pos = passed(pos);
        continue;
      }
      if (rules.size * rules.size - popcount(pos.player | pos.opponent) === empties) {
        out.push(pos);
        break;
      }
      const legal = squares(legalMoves(rules, pos));
      pos = playLegal(rules, pos, legal[Math.floor(rng() * legal.length)]);
    }
  }
  return out;
}

for (const text of ['othello', 'othello,6x6', 'othello,empties', 'othello,reverse']) {
  test(`${text}: the exact score and every best move, as othello-zero solves them`, () => {
    const rules = parseRules(text);
    const cases = [4, 8, 10, 12].flatMap((empties) => positions(rules, empties, 5, empties));
    const file = join(mkdtempSync(join(tmpdir(), 'othello-zero-web-')), 'positions.txt');
    writeFileSync(file, cases.map((p) => boardString(p, rules.size)).join('\n') + '\n');
    const out = othelloZero(['solve', '--rules', text, '--file', file]);
    assert.equal(out.status, 0, out.stderr);
    const expected = [...out.stdout.matchAll(/^line \d+: best (\S+) score ([+-]?\d+)/gm)];
    assert.equal(expected.length, cases.length, out.stdout);
    cases.forEach((pos, i) => {
      const solved = solve(rules, pos);
      const line = boardString(pos, rules.size);
      assert.equal(solved.score, Number(expected[i][2]), line);
      assert.deepEqual(solved.best.map(squareName).sort(), expected[i][1].split(',').sort(), line);
    });
  });
}

test('beyond its empties, or in Reversi\'s opening, the solver says it cannot', () => {
  const othello = parseRules('othello');
  assert.equal(solve(othello, startPosition(othello)), null);
  assert.equal(solve(othello, positions(othello, 13, 1, 1)[0], { maxEmpties: 12 }), null);
  const traditional = parseRules('traditional,4x4');
  assert.equal(solve(traditional, startPosition(traditional)), null);
});
