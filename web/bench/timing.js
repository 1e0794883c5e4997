// The timing both benchmarks share, in Node.js and in the browser alike.

import { search } from '../src/index.js';

/** Times `search` on each position, for each root, one leaf at a time and 8 together; one line each. */
export async function timeSearches(net, rules, positions, simulations, now) {
  const lines = [];
  for (const [gumbel, batch] of [[0, 1], [0, 8], [16, 1], [16, 8]]) {
    const start = now();
    for (const pos of positions) await search(net, rules, pos, { sims: simulations, gumbel, batch });
    const seconds = (now() - start) / 1000;
    const root = `${gumbel ? `Gumbel over ${gumbel}` : 'PUCT'}, batch ${batch}`;
    const rate = Math.round((positions.length * simulations) / seconds);
    const each = (seconds / positions.length).toFixed(3);
    lines.push(`${root}: ${positions.length} searches of ${simulations} simulations in ${seconds.toFixed(2)} s: ${rate} simulations/s, ${each} s a move`);
  }
  return lines;
}
