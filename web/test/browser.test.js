// The page in a real browser: Debian's Chromium, headless, driven by playwright-core. A person's moves are clicks;
// the network answers; whole games against a random clicker end with the score othello-zero's own rules give.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { browserSession, CHROMIUM, openPage, othelloZero, pageState, random } from './helpers.js';

// Without a browser these tests say so and why, rather than passing.
const skip = CHROMIUM ? false : 'no Chromium: install Debian\'s chromium, or set CHROMIUM to a Chromium binary';

const session = browserSession();

const state = pageState;

/** Plays a whole game on the page as `colour`, clicking seeded random legal moves; returns the page's last state. */
async function playAgainstRandom(page, seed, { screenshotAt, screenshot } = {}) {
  const rng = random(seed);
  for (let clicks = 0; ; clicks++) {
    await page.waitForFunction(() => ['your-move', 'over'].includes(window.othelloZero.state().status), null, { timeout: 120_000 });
    const now = await state(page);
    if (now.status === 'over') return now;
    if (screenshot && clicks === screenshotAt) await page.screenshot({ path: screenshot });
    // An illegal square is not taken.
    const empty = await page.$$eval('.cell:not(.legal):not(:has(.disc))', (cells) => cells.map((c) => c.dataset.square));
    if (empty.length) {
      await page.click(`[data-square="${empty[0]}"]`);
      assert.equal((await state(page)).transcript, now.transcript);
    }
    const legal = await page.$$eval('.cell.legal', (cells) => cells.map((c) => c.dataset.square));
    assert.deepEqual(legal.sort(), [...now.legal].sort());
    const choice = legal[Math.floor(rng() * legal.length)];
    await page.click(`[data-square="${choice}"]`);
    await page.waitForFunction((before) => window.othelloZero.state().transcript !== before, now.transcript);
  }
}

/** The score othello-zero's rules give the page's transcript (which they also check move by move). */
function referenceScore(rules, transcript) {
  const out = othelloZero(['replay', '--rules', rules], `${transcript}\n`);
  assert.equal(out.status, 0, `${transcript}: ${out.stdout} ${out.stderr}`);
  return out.stdout.trim();
}

test('a whole game as black against the shipped 8x8 network ends with the right score', { skip }, async () => {
  const { page, errors } = await openPage(session.browser, session.server, '');
  await page.selectOption('#simulations', '50');
  const final = await playAgainstRandom(page, 1, { screenshotAt: 12, screenshot: process.env.WEB_SCREENSHOT });
  const text = await page.textContent('#status');
  const [black, white] = referenceScore('othello', final.transcript).split(' ');
  assert.match(text, new RegExp(`Game over: .*, ${black}-${white}\\.`));
  assert.ok(final.transcript.split(' ').length >= 50, final.transcript);
  // The network's view of its last move is shown: its evaluation and its top moves.
  assert.match(await page.textContent('#evaluation'), /wins \d+% \(margin [+-]\d/);
  assert.ok((await page.$$('#top-moves tbody tr')).length >= 1);
  assert.deepEqual(errors, []);
});

test('the 6x6 export by its URL, as white, with undo and new game', { skip }, async () => {
  const { page, errors } = await openPage(session.browser, session.server, '?model=../networks/othello-6x6/export/');
  await page.selectOption('#root', '0'); // PUCT here, Gumbel (the default) in the 8x8 game
  await page.selectOption('#colour', 'white');
  await page.waitForFunction(() => window.othelloZero.state().status === 'your-move' && window.othelloZero.state().transcript !== '');
  const first = await state(page);
  assert.equal(first.board.length, 36 + 2);
  assert.equal(first.transcript.split(' ').length, 1); // the network opened as black
  // Two moves of ours, then undo: back to our first turn.
  for (let i = 0; i < 2; i++) {
    const before = await state(page);
    await page.click(`[data-square="${before.legal[0]}"]`);
    await page.waitForFunction((t) => {
      const s = window.othelloZero.state();
      return s.transcript !== t && ['your-move', 'over'].includes(s.status);
    }, before.transcript);
  }
  await page.click('#undo');
  await page.waitForFunction(() => window.othelloZero.state().status === 'your-move');
  const undone = await state(page);
  assert.equal(undone.transcript.split(' ').length, 3, undone.transcript);
  const final = await playAgainstRandom(page, 2);
  const [black, white] = referenceScore('othello,6x6', final.transcript).split(' ');
  assert.match(await page.textContent('#status'), new RegExp(`, ${black}-${white}\\.`));
  await page.click('#new-game');
  await page.waitForFunction(() => window.othelloZero.state().transcript.split(' ').length === 1);
  // Black chosen while the network thinks on its first move: its search is dropped, the person's game begins.
  await page.selectOption('#simulations', '3200');
  await page.click('#new-game');
  // The page answers while the network thinks (the search gives the event loop turns).
  assert.equal((await state(page)).status, 'thinking');
  await page.selectOption('#colour', 'black');
  await page.waitForFunction(() => window.othelloZero.state().status === 'your-move', null, { timeout: 60_000 });
  assert.equal((await state(page)).transcript, '');
  assert.deepEqual(errors, []);
});
