// A cold load in headless Chromium, a fresh browser context each time (nothing cached): how long until the board is
// drawn, until the runtime and the shipped 8x8 network are loaded (the person's move), and, playing white, until
// the network's first move (level 3). `node bench/load.js [ROUNDS]`

import { launchChromium, REPO, serve } from '../test/helpers.js';

const rounds = Number(process.argv[2] || 3);
const server = await serve(REPO);
const browser = await launchChromium();
const url = `http://127.0.0.1:${server.address().port}/web/index.html`;
const rows = [];
for (let i = 0; i < rounds; i++) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const start = Date.now();
  await page.goto(url);
  await page.waitForSelector('.cell');
  const board = Date.now() - start;
  await page.waitForFunction(() => window.othelloZero?.state().status === 'your-move', null, { timeout: 120_000 });
  const ready = Date.now() - start;
  await page.selectOption('#colour', 'white');
  await page.waitForFunction(() => window.othelloZero.state().transcript !== '', null, { timeout: 120_000 });
  const first = Date.now() - start;
  rows.push([board, ready, first]);
  await context.close();
}
const median = (k) => rows.map((r) => r[k]).sort((a, b) => a - b)[Math.floor(rows.length / 2)];
console.log(`Chromium ${browser.version()}, ${rounds} cold loads, median: board drawn ${median(0)} ms, network ready ${median(1)} ms, `
  + `the network's first move (as white, level 3) ${median(2)} ms`);
await browser.close();
server.close();
