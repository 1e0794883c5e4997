// A PUCT tree search over the network, as othello-zero's `net:` player searches with `interior=puct`: AlphaZero's
// child choice q + c * P * sqrt(N) / (1 + n), unvisited children at their parent's value less a first-play
// reduction, exact values at the game's end, the most visited root move played.

import { outcome, passed, playLegal, status } from './rules.js';
import { PASS } from './network.js';

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
  }

  get q() {
    return this.visits ? this.valueSum / this.visits : 0;
  }
}

/**
 * Searches `pos` with `simulations` network evaluations (at least 1) and returns the move to play (a square, or
 * PASS), the root's children (move, prior, visits, q for the mover, best first), and the network's own root value
 * and margin.
 */
export async function search(net, rules, pos, { simulations = 200, cPuct = 1.5, fpuReduction = 0.2 } = {}) {
  const root = new Node(pos, 1);
  const [rootEval] = await net.evaluate([pos], rules);
  expand(root, rootEval, rules);
  backup([root], rootEval.value);
  for (let i = 1; i < simulations; i++) {
    const path = [root];
    let node = root;
    while (node.children && node.children.length) {
      node = select(node, cPuct, fpuReduction);
      path.push(node);
    }
    const state = status(rules, node.pos);
    let value;
    if (state === 'over') value = finalValue(rules, node.pos);
    else {
      const [evaluation] = await net.evaluate([node.pos], rules);
      expand(node, evaluation, rules);
      value = evaluation.value;
    }
    backup(path, value);
  }
  const children = root.children
    .map(([move, child]) => ({ move, prior: child.prior, visits: child.visits, q: child.visits ? -child.q : null }))
    .sort((a, b) => b.visits - a.visits || b.prior - a.prior);
  return { move: children[0].move, children, value: rootEval.value, margin: rootEval.margin };
}

function expand(node, evaluation, rules) {
  node.children = [...evaluation.priors].map(([move, prior]) => {
    const next = move === PASS ? passed(node.pos) : playLegal(rules, node.pos, move);
    return [move, new Node(next, prior)];
  });
}

function select(node, cPuct, fpuReduction) {
  const sqrtN = Math.sqrt(Math.max(node.visits, 1));
  let visitedPrior = 0;
  for (const [, child] of node.children) if (child.visits) visitedPrior += child.prior;
  const fpu = node.q - fpuReduction * Math.sqrt(visitedPrior);
  let best = null;
  let bestScore = -Infinity;
  for (const [, child] of node.children) {
    const q = child.visits ? -child.q : fpu;
    const score = q + (cPuct * child.prior * sqrtN) / (1 + child.visits);
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
