// The encoder and the network through onnxruntime (Node.js) against the export's examples, and the search.

import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

import * as ort from 'onnxruntime-node';

import { encode, PLANES } from '../src/planes.js';
import { Network } from '../src/network.js';
import { search } from '../src/search.js';
import {
  PASS, boardString, legalMoves, parseRules, parseSquare, parseTranscript, play, popcount, playLegal, replay, squareName, squares,
  startPosition, status,
} from '../src/rules.js';
import { othelloZero, random, randomGame, readJson, shippedExports } from './helpers.js';

const exports = shippedExports();

test('the shipped exports are there', () => assert.ok(exports.length >= 2, exports.join(', ')));

for (const dir of exports) {
  const examples = readJson(join(dir, 'examples.json'));
  const card = readJson(join(dir, 'model-card.json'));
  const rules = parseRules(examples.rules);
  const positions = examples.examples.map((e) => replay(rules, e.moves).at(-1));

  test(`${dir}: the moves reach each example's board and the encoder gives its planes`, () => {
    assert.equal(card.rules, examples.rules);
    assert.deepEqual(card.input.planes.map((p) => p.name), PLANES);
    examples.examples.forEach((e, i) => {
      assert.equal(boardString(positions[i], rules.size), e.board, e.moves);
      assert.deepEqual(Array.from(encode(rules, positions[i])), e.planes, e.moves);
    });
  });

  test(`${dir}: onnxruntime gives the examples' outputs to 1e-5`, async () => {
    const net = await Network.fromBytes(ort, card, readFileSync(join(dir, card.onnx.file)));
    const planes = new Float32Array(examples.examples.flatMap((e) => e.planes));
    const out = await net.run(planes, examples.examples.length);
    let worst = 0;
    examples.examples.forEach((e, i) => {
      const pairs = [
        [out.policy.subarray(i * 65, (i + 1) * 65), e.policy],
        [[out.value[i]], [e.value]],
        [[out.margin[i]], [e.margin]],
        [out.ownership.subarray(i * 64, (i + 1) * 64), e.ownership],
      ];
      for (const [got, want] of pairs) want.forEach((w, k) => (worst = Math.max(worst, Math.abs(got[k] - w))));
    });
    assert.ok(worst <= 1e-5, `largest difference ${worst}`);
    // The priors are over the legal moves only, the pass alone where there is none.
    const evaluations = await net.evaluate(positions, rules);
    evaluations.forEach(({ priors }, i) => {
      const legal = squares(legalMoves(rules, positions[i]));
      assert.deepEqual([...priors.keys()].sort((a, b) => a - b), legal.length ? legal : [PASS]);
      assert.ok(Math.abs([...priors.values()].reduce((a, b) => a + b, 0) - 1) < 1e-9);
    });
  });
}

test('the search plays a move that keeps the exact result where few empties are left', async () => {
  const dir = exports.find((d) => readJson(join(d, 'model-card.json')).rules === 'othello,8x8');
  const card = readJson(join(dir, 'model-card.json'));
  const net = await Network.fromBytes(ort, card, readFileSync(join(dir, 'model.onnx')));
  const rules = parseRules(card.rules);
  // Positions with 5 empties from random games (the side to move has a choice), and the move the search plays.
  const rng = random(7);
  const cases = [];
  while (cases.length < 12) {
    const { transcript } = randomGame(rules, rng, true);
    const line = replay(rules, transcript);
    const pos = line.find((p) => popcount(p.player | p.opponent) === 59 && squares(legalMoves(rules, p)).length > 1);
    if (pos) cases.push(pos);
  }
  const file = join(mkdtempSync(join(tmpdir(), 'othello-zero-web-')), 'positions.txt');
  writeFileSync(file, cases.map((p) => boardString(p, 8)).join('\n') + '\n');
  const solved = othelloZero(['solve', '--all-moves', '--file', file]);
  assert.equal(solved.status, 0, solved.stderr);
  // Each position's exact score per move: lines `  d3 +4` after each `line N:`.
  const scores = solved.stdout.split(/^line \d+:.*$/m).slice(1).map((block) =>
    new Map(block.trim().split('\n').filter((l) => /^\s*[a-h][1-8] /.test(l)).map((l) => l.trim().split(/\s+/)).map(([m, s]) => [m, Number(s)])));
  assert.equal(scores.length, cases.length);
  for (const [i, pos] of cases.entries()) {
    for (const [gumbel, batch] of [[0, 1], [16, 1], [0, 8], [16, 8]]) {
      const result = await search(net, rules, pos, { sims: 800, gumbel, batch });
      const best = Math.max(...scores[i].values());
      const played = scores[i].get(squareName(result.move));
      const line = `${boardString(pos, 8)}, gumbel ${gumbel}, batch ${batch}: ${squareName(result.move)} ${played}, best ${best}`;
      assert.equal(Math.sign(played), Math.sign(best), line);
      assert.ok(result.children.reduce((n, c) => n + c.visits, 0) <= 800 - 1, line);
    }
  }
  // From the start, a legal move.
  const start = await search(net, rules, startPosition(rules), { sims: 50 });
  assert.ok(squares(legalMoves(rules, startPosition(rules))).includes(start.move));
  assert.ok(playLegal(rules, startPosition(rules), start.move));
});

test('a move that ends the game is played though the network gives it no prior', async () => {
  const rules = parseRules('othello,8x8');
  const pos = replay(rules, 'e6f4e3d6c5f6e7f5').at(-1);
  const g5 = squares(legalMoves(rules, pos)).find((sq) => squareName(sq) === 'g5');
  // By the rules, g5 takes white's last discs: the game ends there, won by black.
  const after = playLegal(rules, pos, g5);
  assert.equal(status(rules, after), 'over');
  assert.equal(popcount(after.player), 0);
  // A network blind to it: a uniform prior over the other moves, g5 nil, every value 0.
  const blind = {
    async evaluate(positions) {
      return positions.map((p) => {
        const legal = squares(legalMoves(rules, p));
        const others = legal.filter((sq) => p !== pos || sq !== g5);
        const priors = new Map(legal.length ? legal.map((sq) => [sq, others.includes(sq) ? 1 / others.length : 0]) : [[PASS, 1]]);
        return { priors, value: 0, margin: 0 };
      });
    },
  };
  for (const gumbel of [0, 2]) {
    const result = await search(blind, rules, pos, { sims: 2, gumbel });
    assert.equal(squareName(result.move), 'g5', `gumbel ${gumbel}`);
  }
});

test('Gumbel\'s sequential halving keeps to its simulations and spends most of them', async () => {
  const dir = exports.find((d) => readJson(join(d, 'model-card.json')).rules === 'othello,8x8');
  const card = readJson(join(dir, 'model-card.json'));
  const net = await Network.fromBytes(ort, card, readFileSync(join(dir, 'model.onnx')));
  const pos = replay(net.rules, 'f5d6c3d3c4f4').at(-1);
  // The same budgets as othello-zero's own test of its Gumbel root (search/src/halving.rs).
  for (const [simulations, gumbel] of [[1, 8], [2, 8], [4, 16], [8, 16], [16, 8], [32, 32], [50, 7], [200, 16]]) {
    for (const batch of [1, 8]) {
      const result = await search(net, net.rules, pos, { sims: simulations, gumbel, batch });
      const spent = 1 + result.children.reduce((n, c) => n + c.visits, 0);
      const line = `${simulations} simulations, ${gumbel}, batch ${batch}: ${spent} spent`;
      assert.ok(spent <= simulations && 2 * spent >= simulations, line);
      assert.ok(squares(legalMoves(net.rules, pos)).includes(result.move));
    }
  }
});

test('the old spellings of the search options are refused with the new name', async () => {
  const rules = parseRules('othello,8x8');
  const never = { evaluate: () => assert.fail('searched') };
  await assert.rejects(search(never, rules, startPosition(rules), { simulations: 8 }), /simulations is spelled sims/);
  await assert.rejects(search(never, rules, startPosition(rules), { cPuct: 2 }), /cPuct is spelled cpuct/);
});

test('a search is cancelled through its AbortSignal and reports its progress', async () => {
  const rules = parseRules('othello,8x8');
  let evaluations = 0;
  const uniform = {
    async evaluate(positions) {
      evaluations += positions.length;
      return positions.map((p) => {
        const legal = squares(legalMoves(rules, p));
        const priors = new Map(legal.length ? legal.map((sq) => [sq, 1 / legal.length]) : [[PASS, 1]]);
        return { priors, value: 0, margin: 0 };
      });
    },
  };
  const start = startPosition(rules);
  // Abandoned before it starts: nothing evaluated.
  const stopped = new AbortController();
  stopped.abort(new Error('a new game'));
  await assert.rejects(search(uniform, rules, start, { sims: 100, signal: stopped.signal }), /a new game/);
  assert.equal(evaluations, 0);
  // Abandoned at its report of 64 simulations: it stops there.
  const progress = [];
  const undo = new AbortController();
  const onProgress = (p) => {
    progress.push(p);
    if (p.done === 64) undo.abort(new Error('undo'));
  };
  await assert.rejects(search(uniform, rules, start, { sims: 10_000, signal: undo.signal, onProgress }), /undo/);
  assert.ok(evaluations <= 64 && evaluations >= 60, `${evaluations} evaluations`);
  assert.deepEqual(progress, [{ done: 32, sims: 10_000 }, { done: 64, sims: 10_000 }]);
  // Run to its end, the last report is the whole search.
  const reports = [];
  await search(uniform, rules, start, { sims: 100, onProgress: (p) => reports.push(p.done) });
  assert.deepEqual(reports, [32, 64, 96, 100]);
});

test('one pass value: search answers PASS where the rules force it, and play and squareName take it', async () => {
  // The first forced pass of seeded random games.
  const rules = parseRules('othello,8x8');
  let forced = null;
  for (let seed = 1; !forced && seed < 1000; seed++) {
    const rng = random(seed);
    let pos = startPosition(rules);
    while (status(rules, pos) === 'moves') {
      const legal = squares(legalMoves(rules, pos));
      pos = playLegal(rules, pos, legal[Math.floor(rng() * legal.length)]);
    }
    if (status(rules, pos) === 'pass') forced = pos;
  }
  assert.ok(forced, 'a position with a forced pass');
  const net = {
    async evaluate(ps) {
      return ps.map((p) => {
        const legal = squares(legalMoves(rules, p));
        return { priors: new Map(legal.length ? legal.map((sq) => [sq, 1 / legal.length]) : [[PASS, 1]]), value: 0, margin: 0 };
      });
    },
  };
  const { move } = await search(net, rules, forced, { sims: 4 });
  assert.equal(move, PASS);
  assert.equal(squareName(move), 'pass');
  assert.equal(play(rules, forced, move).side, forced.side === 'black' ? 'white' : 'black');
  assert.deepEqual(parseTranscript('f5 pass --'), [parseSquare('f5'), PASS, PASS]);
  assert.throws(() => play(rules, startPosition(rules), 'pass'), /not a move/);
});

