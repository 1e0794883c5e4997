// The module as a TypeScript frontend uses it, checked by `tsc --noEmit` (test/package.test.js): the README's
// example with its types, and what the types refuse.

import * as ort from 'onnxruntime-web';
import { Network, PASS, play, replay, search, squareName, status } from '../src/index.js';
import type { Evaluator, Move, Position, SearchResult } from '../src/index.js';

export async function firstMove(): Promise<string> {
  const net = await Network.fromUrl(ort, 'networks/othello-8x8/export/');
  let pos: Position = replay(net.rules, 'f5 d6 c3').at(-1)!;
  const stop = new AbortController();
  const result: SearchResult = await search(net, net.rules, pos, {
    sims: 400, gumbel: 16, signal: stop.signal, onProgress: ({ done, sims }) => console.log(`${done}/${sims}`),
  });
  const move: Move = result.move;
  pos = play(net.rules, pos, move);
  return `${squareName(move === PASS ? PASS : move)} ${status(net.rules, pos)}`;
}

// A wrapper evaluator (a cache, a queue) searches as the network does.
export const queued = (net: Network): Evaluator => ({ evaluate: (positions, rules) => net.evaluate(positions, rules) });

// @ts-expect-error: a search option spelled the old way is no option
export const old = (net: Network, pos: Position) => search(net, net.rules, pos, { simulations: 10 });
