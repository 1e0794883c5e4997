// othello-zero for JavaScript frontends: the rules, the network's input planes, the network through ONNX Runtime,
// and a tree search over it. See the export's model-card.json for what each input and output means.

export * from './rules.js';
export { encode, stableDiscs, PLANES } from './planes.js';
export { Network } from './network.js';
export { search } from './search.js';
export { solve } from './solve.js';
