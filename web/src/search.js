// A tree search over the network, as othello-zero's `net:` player searches: below the root AlphaZero's PUCT child
// choice q + c * P * sqrt(N) / (1 + n), unvisited children at their parent's value less a first-play reduction,
// exact values at the game's end. At the root either PUCT too, the most visited move played, or (`gumbel: K`) Gumbel
// AlphaZero's noiseless root as the player's `gumbel=K`: the K moves of highest prior, the budget split between them
// by sequential halving on prior plus sigma(completed value), the best survivor played. As othello-zero's search,
// a move that ends the game is valued exactly as soon as its parent is expanded, and a node whose result is known
// (a move of it wins at once, or every move's result is known) passes it up: a wipe-out counts though its prior
// is nil.

import { PASS, outcome, passed, playLegal, status } from './rules.js';

/** The game's result for the side to move of a finished position: 1 a win, 0 a draw, -1 a loss. */
function finalValue(rules, pos) {
  const { winner } = outcome(rules, pos);
  return winner === null ? 0 : winner === pos.side ? 1 : -1;
}

class Node {
  constructor(pos, prior) {
    this.pos = pos;
    this.prior = prior;
    this.visits = 0;
    this.valueSum = 0; // from the view of this node's side to move
    this.children = null; // [move, Node][] once expanded
    this.exact = null; // the known result for this node's side to move (1, 0, -1), once known
  }

  get q() {
    return this.visits ? this.valueSum / this.visits : 0;
  }
}

/**
 * Searches `pos` with `sims` network evaluations (at least 1) and returns the move to play (a square, or
 * PASS), the root's children (move, prior, visits, q for the mover; the move first, then by visits), and the
 * network's own root value and margin. `cpuct` is PUCT's exploration constant; `gumbel: K` chooses at the root by
 * Gumbel AlphaZero over K moves; `yieldMs: T` lets the event loop run every T ms (a page stays responsive);
 * `signal` (an AbortSignal) abandons the search, which then rejects with the signal's reason; `onProgress` is
 * called with `{ done, sims }` every 32 simulations and at the end; `batch: B` evaluates up to B leaves in one call
 * (virtual loss keeps them apart): a browser's ONNX Runtime answers 8 positions in little more than 1's time.
 */
export async function search(net, rules, pos, options = {}) {
  for (const [old, now] of [['simulations', 'sims'], ['cPuct', 'cpuct']]) {
    if (old in options) throw new Error(`search: the option ${old} is spelled ${now} now`);
  }
  const { sims = 200, gumbel = 0, cpuct = 1.5, fpuReduction = 0.2, yieldMs = null, signal = null } = options;
  const { onProgress = null, batch = 1 } = options;
  if (!Number.isInteger(batch) || batch < 1) throw new Error(`search: batch is a whole number from 1, not ${batch}`);
  signal?.throwIfAborted();
  let done = 1;
  // ONNX Runtime's answers come as microtasks: without a macrotask now and then, a page could not paint or take a
  // click until the search ends. `yieldMs` gives the event loop a turn that often.
  let lastYield = performance.now();
  const breathe = async () => {
    if (yieldMs !== null && performance.now() - lastYield >= yieldMs) {
      await new Promise((resolve) => setTimeout(resolve, 0));
      lastYield = performance.now();
    }
  };
  const root = new Node(pos, 1);
  const [rootEval] = await net.evaluate([pos], rules);
  expand(root, rootEval, rules);
  backup([root], rootEval.value);
  settle([root]);
  // Simulations from `starts` (paths from the root), up to `batch` at a time: each goes down by PUCT to a leaf,
  // leaving a virtual loss on the nodes it passes so that the next one looks elsewhere; the distinct leaves are
  // evaluated in one call; then each path is backed up. One at a time, this is the plain sequential search.
  const simulateAll = async (starts) => {
    for (let at = 0; at < starts.length; at += batch) {
      const paths = starts.slice(at, at + batch).map((start) => descend([...start], cpuct, fpuReduction, rules));
      const leaves = [...new Set(paths.map((path) => path.at(-1)).filter((leaf) => leaf.exact === null))];
      const evaluations = leaves.length ? await net.evaluate(leaves.map((leaf) => leaf.pos), rules) : [];
      const values = new Map(leaves.map((leaf, i) => [leaf, evaluations[i].value]));
      leaves.forEach((leaf, i) => expand(leaf, evaluations[i], rules));
      for (const path of paths) {
        for (const node of path.slice(1)) [node.visits, node.valueSum] = [node.visits - 1, node.valueSum - 1];
        const leaf = path.at(-1);
        backup(path, values.has(leaf) ? values.get(leaf) : leaf.exact);
        settle(path);
      }
      const before = done;
      done += paths.length;
      if (onProgress && Math.floor(done / 32) > Math.floor(before / 32)) onProgress({ done, sims });
      await breathe();
      signal?.throwIfAborted();
    }
  };
  let chosen;
  if (gumbel > 0) chosen = await sequentialHalving(root, rootEval.value, sims, gumbel, simulateAll);
  else await simulateAll(Array.from({ length: sims - 1 }, () => [root]));
  // A move known to win is played, whatever was chosen.
  const winning = root.children.find(([, child]) => child.exact === -1);
  if (winning) chosen = winning[0];
  onProgress?.({ done, sims });
  const children = root.children
    .map(([move, child]) => ({ move, prior: child.prior, visits: child.visits, q: child.visits ? -child.q : null }))
    .sort((a, b) => (b.move === chosen) - (a.move === chosen) || b.visits - a.visits || b.prior - a.prior);
  return { move: children[0].move, children, value: rootEval.value, margin: rootEval.margin };
}

/**
 * Gumbel AlphaZero's root without noise (Danihelka et al., 2022), as othello-zero's player: the `considered` moves
 * of highest prior, the simulations left split over rounds that each give every candidate an equal share of simulations
 * through it, then keep the better half by log prior + sigma(completed value). Returns the chosen move.
 */
async function sequentialHalving(root, rootValue, simulations, considered, simulate) {
  let budget = simulations - 1; // the root's own evaluation was the first
  const logit = ([, child]) => Math.log(child.prior);
  let candidates = [...root.children].sort((a, b) => logit(b) - logit(a));
  candidates = candidates.slice(0, Math.max(1, Math.min(considered, candidates.length, budget)));
  const rounds = Math.max(1, Math.ceil(Math.log2(candidates.length)));
  for (let round = 0; round < rounds; round++) {
    const n = candidates.length;
    const per = Math.max(1, Math.floor(simulations / (rounds * n)));
    const spend = Math.min(round + 1 === rounds ? Math.max(per, Math.floor(budget / n)) : per, Math.floor(budget / n));
    if (spend === 0) break;
    budget -= spend * n;
    await simulate(candidates.flatMap(([, child]) => Array.from({ length: spend }, () => [root, child])));
    if (n > 1) {
      const score = rootScores(root, rootValue);
      candidates.sort((a, b) => logit(b) + score(b[1]) - (logit(a) + score(a[1])));
      candidates = candidates.slice(0, Math.ceil(n / 2));
    }
  }
  return candidates[0][0];
}

/**
 * sigma of each root child's completed value for the root's mover: its mean where visited, else the root's
 * v_mix (the network's value mixed with the visited children's prior-weighted mean); sigma(q) = (50 + max
 * visits) * (q + 1) / 2, Gumbel's c_visit 50 and c_scale 1 on values in [-1, 1].
 */
function rootScores(root, rootValue) {
  const children = root.children.map(([, child]) => child);
  const visits = children.reduce((n, c) => n + c.visits, 0);
  const visited = children.filter((c) => c.visits);
  const priorSum = visited.reduce((p, c) => p + c.prior, 0);
  const weighted = visited.reduce((q, c) => q + c.prior * -c.q, 0);
  const mixed = visited.length ? (rootValue + (visits * weighted) / priorSum) / (1 + visits) : rootValue;
  const most = Math.max(...children.map((c) => c.visits));
  return (child) => ((50 + most) * ((child.visits ? -child.q : mixed) + 1)) / 2;
}

/**
 * From the end of `path` down by PUCT to a leaf (a node not yet evaluated, or one whose result is known), valuing
 * a finished game exactly; leaves a virtual loss (a visit lost for whoever moved there) on each node below the root.
 */
function descend(path, cpuct, fpuReduction, rules) {
  let node = path.at(-1);
  while (node.exact === null && node.children && node.children.length) {
    node = select(node, cpuct, fpuReduction);
    path.push(node);
  }
  if (node.exact === null && status(rules, node.pos) === 'over') node.exact = finalValue(rules, node.pos);
  for (const n of path.slice(1)) [n.visits, n.valueSum] = [n.visits + 1, n.valueSum + 1];
  return path;
}

function expand(node, evaluation, rules) {
  node.children = [...evaluation.priors].map(([move, prior]) => {
    const next = move === PASS ? passed(node.pos) : playLegal(rules, node.pos, move);
    const child = new Node(next, prior);
    if (status(rules, next) === 'over') child.exact = finalValue(rules, next);
    return [move, child];
  });
}

/**
 * From the end of `path` up, each expanded node's result where its children make it known: a win where a move
 * leaves the opponent lost, otherwise the best result once every move's is known.
 */
function settle(path) {
  for (let i = path.length - 1; i >= 0; i--) {
    const node = path[i];
    if (node.exact !== null || !node.children || !node.children.length) continue;
    const results = node.children.map(([, child]) => child.exact);
    if (results.includes(-1)) node.exact = 1;
    else if (results.every((r) => r !== null)) node.exact = Math.max(...results.map((r) => -r));
    else return;
  }
}

function select(node, cpuct, fpuReduction) {
  // A move that wins at once is taken; one known to lose is left while another is open.
  const winning = node.children.find(([, child]) => child.exact === -1);
  if (winning) return winning[1];
  const open = node.children.filter(([, child]) => child.exact !== 1);
  const sqrtN = Math.sqrt(Math.max(node.visits, 1));
  let visitedPrior = 0;
  for (const [, child] of node.children) if (child.visits) visitedPrior += child.prior;
  const fpu = node.q - fpuReduction * Math.sqrt(visitedPrior);
  let best = null;
  let bestScore = -Infinity;
  for (const [, child] of open.length ? open : node.children) {
    const q = child.visits ? -child.q : fpu;
    const score = q + (cpuct * child.prior * sqrtN) / (1 + child.visits);
    if (score > bestScore) [best, bestScore] = [child, score];
  }
  return best;
}

/** Adds the leaf's value along the path, each node from its own side to move's view. */
function backup(path, leafValue) {
  let value = leafValue;
  for (let i = path.length - 1; i >= 0; i--) {
    path[i].visits += 1;
    path[i].valueSum += value;
    value = -value;
  }
}
