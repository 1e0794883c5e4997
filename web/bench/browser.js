// Search speed in the browser: bench/search.js's measure inside headless Chromium, through onnxruntime-web
// (WebAssembly, one thread, as the page runs it), on the shipped 8x8 network. `node bench/browser.js [SIMS]`

import { parseRules } from '../src/index.js';
import { launchChromium, REPO, serve } from '../test/helpers.js';
import { benchPositions } from './search.js';

const simulations = Number(process.argv[2] || 800);
const server = await serve(REPO);
const browser = await launchChromium();
const page = await browser.newPage();
await page.goto(`http://127.0.0.1:${server.address().port}/web/index.html`);
const { transcript } = benchPositions(parseRules('othello'));
const lines = await page.evaluate(
  async ([transcript, simulations]) => {
    const z = await import('./src/index.js');
    const { timeSearches } = await import('./bench/timing.js');
    const ort = await import('./node_modules/onnxruntime-web/dist/ort.wasm.min.mjs');
    ort.env.wasm.wasmPaths = new URL('./node_modules/onnxruntime-web/dist/', location.href).href;
    ort.env.wasm.numThreads = 1;
    const net = await z.Network.fromUrl(ort, '../networks/othello-8x8/export/');
    const positions = z.replay(net.rules, transcript).filter((p) => z.status(net.rules, p) === 'moves');
    return timeSearches(net, net.rules, positions, simulations, () => performance.now());
  },
  [transcript, simulations],
);
console.log(`Chromium ${browser.version()}, onnxruntime-web (WebAssembly, 1 thread)`);
for (const line of lines) console.log(line);
await browser.close();
server.close();
