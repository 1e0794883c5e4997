// What the tests and benchmarks share: the othello-zero binary (the reference the JavaScript is checked against), a
// seeded random number generator and random games, a static file server and headless Chromium.

import { spawnSync } from 'node:child_process';
import { createReadStream, existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname, extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';

import { after, before } from 'node:test';

import { chromium } from 'playwright-core';

import { legalMoves, passed, playLegal, squareName, squares, startPosition, status } from '../src/rules.js';

export const REPO = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * The othello-zero binary: OTHELLO_ZERO_BIN where set, else the newer of the repository's release and debug builds
 * (`cargo build --release` for `npm test`; `cargo test` builds the debug one just before it runs these tests).
 */
export function binary() {
  if (process.env.OTHELLO_ZERO_BIN) return process.env.OTHELLO_ZERO_BIN;
  const builds = ['release', 'debug'].map((profile) => join(REPO, 'target', profile, 'othello-zero')).filter((p) => existsSync(p));
  if (!builds.length) throw new Error('no othello-zero binary: build it first (cargo build --release), or set OTHELLO_ZERO_BIN');
  return builds.reduce((newest, p) => (statSync(p).mtimeMs > statSync(newest).mtimeMs ? p : newest));
}

/** Runs the binary; its standard output, or an error with its standard error. */
export function othelloZero(args, input = '') {
  const out = spawnSync(binary(), args, { input, encoding: 'utf8', maxBuffer: 1 << 28 });
  if (out.error) throw out.error;
  return { stdout: out.stdout, stderr: out.stderr, status: out.status };
}

/** mulberry32: a small seeded generator of floats in [0, 1). */
export function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A random game to its end: its transcript (passes written as `pass` where `writePasses`) and final position. */
export function randomGame(rules, rng, writePasses) {
  let pos = startPosition(rules);
  const moves = [];
  for (;;) {
    const state = status(rules, pos);
    if (state === 'over') return { transcript: moves.join(' '), pos };
    if (state === 'pass') {
      if (writePasses) moves.push('pass');
      pos = passed(pos);
      continue;
    }
    const legal = squares(legalMoves(rules, pos));
    const sq = legal[Math.floor(rng() * legal.length)];
    moves.push(squareName(sq));
    pos = playLegal(rules, pos, sq);
  }
}

/** The export directories of the shipped networks. */
export function shippedExports() {
  const root = join(REPO, 'networks');
  return readdirSync(root)
    .map((name) => join(root, name, 'export'))
    .filter((dir) => existsSync(join(dir, 'model-card.json')));
}

export const readJson = (path) => JSON.parse(readFileSync(path, 'utf8'));

const TYPES = {
  '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.css': 'text/css',
  '.json': 'application/json', '.wasm': 'application/wasm', '.onnx': 'application/octet-stream', '.png': 'image/png',
};

/** A static file server over the repository, as `python3 -m http.server` serves it. */
export function serve(root) {
  const server = createServer((request, response) => {
    const path = normalize(join(root, decodeURIComponent(new URL(request.url, 'http://x').pathname)));
    if (!path.startsWith(root) || !existsSync(path) || !statSync(path).isFile()) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': TYPES[extname(path)] || 'application/octet-stream' });
    createReadStream(path).pipe(response);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** Chromium's path: CHROMIUM where set, else Debian's; undefined where there is none. */
export const CHROMIUM = process.env.CHROMIUM || ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));

/** Chromium, headless, without the background traffic a closed network refuses. */
export function launchChromium() {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
}

/**
 * Opens the page at `query` in a new browser context of `viewport`, collecting the page's errors and console
 * errors, and waits until its status is `until` (the person's move by default).
 */
export async function openPage(browser, server, query, { viewport = { width: 1100, height: 700 }, until = 'your-move' } = {}) {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  await page.goto(`http://127.0.0.1:${server.address().port}/web/index.html${query}`);
  await page.waitForFunction((s) => window.othelloZero?.state().status === s, until, { timeout: 120_000 });
  return { page, errors, context };
}

/** The page's game as text: board string, transcript (passes written), status, the legal squares. */
export const pageState = (page) => page.evaluate(() => window.othelloZero.state());

/** A static server over the repository and Chromium for one test file: started before its tests, closed after. */
export function browserSession() {
  const session = { server: null, browser: null };
  before(async () => {
    if (!CHROMIUM) return;
    session.server = await serve(REPO);
    session.browser = await launchChromium();
  });
  after(async () => {
    await session.browser?.close();
    session.server?.close();
  });
  return session;
}
