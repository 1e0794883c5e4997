// An exported network through ONNX Runtime: onnxruntime-web in a browser, onnxruntime-node in Node.js (the caller
// passes the one it has). Reads the export's model card and model.onnx; answers positions with the policy over
// legal moves (softmax of the logits over them, the pass at index 64), the value and the expected margin.

import { encode, PLANES } from './planes.js';
import { PASS, legalMoves, parseRules, squares } from './rules.js';

export class Network {
  /** From the model card (parsed JSON) and model.onnx's bytes. */
  static async fromBytes(ort, card, onnxBytes) {
    if (card.format !== 'othello-zero network') throw new Error('model-card.json: not an othello-zero network');
    const session = await ort.InferenceSession.create(onnxBytes);
    return new Network(ort, session, card);
  }

  /** From an export directory's URL (a browser, or any fetch that reads it), ending in `/` or not. */
  static async fromUrl(ort, base) {
    const dir = base.endsWith('/') ? base : `${base}/`;
    const get = async (name) => {
      const response = await fetch(dir + name);
      if (!response.ok) throw new Error(`${dir}${name}: ${response.status} ${response.statusText}`);
      return response;
    };
    const card = await (await get('model-card.json')).json();
    const bytes = new Uint8Array(await (await get('model.onnx')).arrayBuffer());
    return Network.fromBytes(ort, card, bytes);
  }

  constructor(ort, session, card) {
    this.ort = ort;
    this.session = session;
    this.card = card;
    this.rules = parseRules(card.rules);
  }

  /** The raw outputs for a batch of input planes (Float32Array of n * 6 * 64). */
  async run(planes, n) {
    const input = new this.ort.Tensor('float32', planes, [n, PLANES.length, 8, 8]);
    const out = await this.session.run({ planes: input });
    return { policy: out.policy.data, value: out.value.data, margin: out.margin.data, ownership: out.ownership.data };
  }

  /**
   * Each position's evaluation for its side to move: `priors` (move -> probability over the legal moves, or the
   * pass alone when there is none), `value` in [-1, 1], `margin` in discs.
   */
  async evaluate(positions, rules = this.rules) {
    const planes = new Float32Array(positions.length * PLANES.length * 64);
    positions.forEach((pos, i) => encode(rules, pos, planes, i * PLANES.length * 64));
    const out = await this.run(planes, positions.length);
    return positions.map((pos, i) => {
      const logits = out.policy.subarray(i * 65, (i + 1) * 65);
      const moves = squares(legalMoves(rules, pos));
      const legal = moves.length ? moves : [PASS];
      const top = Math.max(...legal.map((m) => logits[m]));
      const weights = legal.map((m) => Math.exp(logits[m] - top));
      const sum = weights.reduce((a, b) => a + b, 0);
      const priors = new Map(legal.map((m, k) => [m, weights[k] / sum]));
      return { priors, value: out.value[i], margin: out.margin[i] * 64 };
    });
  }
}
