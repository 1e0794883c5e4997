// Search speed in Node.js: simulations a second of the search over an export (default: the shipped 8x8 network)
// through onnxruntime-node, PUCT's root and Gumbel's over 16 moves, from the positions of one seeded random game.
// `node bench/search.js [DIR] [SIMS]`

import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import * as ort from 'onnxruntime-node';

import { Network, legalMoves, passed, playLegal, search, squares, startPosition, status } from '../src/index.js';
import { random, REPO } from '../test/helpers.js';

const dir = process.argv[2] || join(REPO, 'networks', 'othello-8x8', 'export');
const simulations = Number(process.argv[3] || 800);
const card = JSON.parse(readFileSync(join(dir, 'model-card.json'), 'utf8'));
const net = await Network.fromBytes(ort, card, readFileSync(join(dir, 'model.onnx')));
const rules = net.rules;
for (const gumbel of [0, 16]) {
  const rng = random(1);
  let pos = startPosition(rules);
  let [searches, seconds] = [0, 0];
  while (status(rules, pos) !== 'over') {
    if (status(rules, pos) === 'pass') {
      pos = passed(pos);
      continue;
    }
    const start = process.hrtime.bigint();
    await search(net, rules, pos, { simulations, gumbel });
    seconds += Number(process.hrtime.bigint() - start) / 1e9;
    searches += 1;
    const moves = squares(legalMoves(rules, pos));
    pos = playLegal(rules, pos, moves[Math.floor(rng() * moves.length)]);
  }
  const root = gumbel ? `Gumbel over ${gumbel}` : 'PUCT';
  const rate = Math.round((searches * simulations) / seconds);
  console.log(`${root}: ${searches} searches of ${simulations} simulations in ${seconds.toFixed(2)} s: ${rate} simulations/s, ${(seconds / searches).toFixed(3)} s a move`);
}
