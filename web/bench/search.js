// Search speed in Node.js: simulations a second of the search over an export (default: the shipped 8x8 network)
// through onnxruntime-node, PUCT's root and Gumbel's over 16 moves, in every position of one seeded random game
// (bench/browser.js searches the same ones in Chromium). `node bench/search.js [DIR] [SIMS]`

import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import * as ort from 'onnxruntime-node';

import { Network, parseRules, replay, status } from '../src/index.js';
import { random, randomGame, REPO } from '../test/helpers.js';
import { timeSearches } from './timing.js';

/** The positions searched: those with a move in one seeded random game. */
export function benchPositions(rules) {
  const { transcript } = randomGame(rules, random(1), true);
  return { transcript, positions: replay(rules, transcript).filter((p) => status(rules, p) === 'moves') };
}

if (process.argv[1] && process.argv[1].endsWith('search.js')) {
  const dir = process.argv[2] || join(REPO, 'networks', 'othello-8x8', 'export');
  const simulations = Number(process.argv[3] || 800);
  const card = JSON.parse(readFileSync(join(dir, 'model-card.json'), 'utf8'));
  const net = await Network.fromBytes(ort, card, readFileSync(join(dir, 'model.onnx')));
  const { positions } = benchPositions(parseRules(card.rules));
  console.log(`Node.js ${process.version}, onnxruntime-node`);
  for (const line of await timeSearches(net, net.rules, positions, simulations, () => performance.now())) console.log(line);
}
