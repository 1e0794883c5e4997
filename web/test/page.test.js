// The page as a player uses it, in headless Chromium: the game record (the move list, back and forward, undo and
// redo, a new line from an earlier position, copy and set-up, a reload), the keyboard and an accessibility audit,
// hints and the evaluation graph, and loading (a bad network never leaves a dead page). Boards are checked against
// othello-zero's own `show`.

import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';

import { browserSession, CHROMIUM, openPage, othelloZero, pageState } from './helpers.js';

const skip = CHROMIUM ? false : 'no Chromium: install Debian\'s chromium, or set CHROMIUM to a Chromium binary';
const PHONE = { width: 390, height: 844 };

const session = browserSession();

/** The board string othello-zero prints for a transcript (or a board string). */
function referenceBoard(position, rules = 'othello') {
  const out = othelloZero(['show', '--rules', rules, ...(position ? [position] : [])]);
  assert.equal(out.status, 0, out.stderr);
  return out.stdout.match(/^board: (.*)$/m)[1];
}

const moves = (state) => (state.transcript ? state.transcript.split(' ') : []);

const settled = (page) => page.waitForFunction(() => ['your-move', 'over', 'review'].includes(window.othelloZero.state().status));

/** Clicks the person's first legal square and waits for the network's answer. */
async function playFirstLegal(page) {
  const before = await pageState(page);
  await page.click(`[data-square="${before.legal[0]}"]`);
  await page.waitForFunction((n) => {
    const s = window.othelloZero.state();
    return s.status === 'your-move' && s.transcript.split(' ').length >= n + 2;
  }, moves(before).length);
}

test('the game record: the move list, back and forward, undo and redo, a new line, copy, set-up and a reload', { skip }, async () => {
  const { page, errors, context } = await openPage(session.browser, session.server, '', { viewport: PHONE });
  // The page fits a phone's width: nothing (a level's long label, say) pushes it past the screen.
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'wider than the phone');
  await page.selectOption('#simulations', '1');
  for (let i = 0; i < 3; i++) await playFirstLegal(page);
  const full = await pageState(page);
  assert.equal(moves(full).length, 6, full.transcript);
  assert.equal(await page.locator('#moves li').count(), 6);
  assert.equal(await page.getAttribute('#moves li:nth-child(6) button', 'aria-current'), 'step');

  // Back two moves: the board is the one othello-zero shows after four; nothing is played meanwhile.
  await page.click('#back');
  await page.click('#back');
  await settled(page);
  const back = await pageState(page);
  assert.equal(back.transcript, moves(full).slice(0, 4).join(' '));
  assert.equal(back.board, referenceBoard(back.transcript));
  // Undo goes to the person's previous turn; the network's view is of a move before it, never of one taken back.
  await page.click('#undo');
  await settled(page);
  assert.equal(moves(await pageState(page)).length, 2);
  assert.match(await page.textContent('#evaluation'), /^Before its move 2 \(/);
  // Forward redoes, to the end: the same moves, the person's turn again, the network asked for nothing.
  await page.click('#forward');
  await settled(page);
  assert.equal(moves(await pageState(page)).length, 3);
  await page.click('#last');
  await page.waitForFunction(() => window.othelloZero.state().status === 'your-move');
  assert.equal((await pageState(page)).transcript, full.transcript);

  // A move from an earlier position starts a new line there.
  await page.click('#moves li:nth-child(2) button');
  await page.waitForFunction(() => window.othelloZero.state().status === 'your-move');
  const earlier = await pageState(page);
  const other = earlier.legal.find((sq) => sq !== moves(full)[2]);
  await page.click(`[data-square="${other}"]`);
  await page.waitForFunction(() => window.othelloZero.state().status === 'your-move' && document.querySelectorAll('#moves li').length === 4);
  const branched = await pageState(page);
  assert.deepEqual(moves(branched).slice(0, 3), [...moves(full).slice(0, 2), other]);
  assert.equal(branched.board, referenceBoard(branched.transcript));

  // Copy puts the transcript on the clipboard; a reload brings the game back as it was.
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.click('#copy');
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), branched.transcript);
  await page.reload();
  await page.waitForFunction(() => window.othelloZero?.state().status === 'your-move', null, { timeout: 120_000 });
  assert.deepEqual(await pageState(page), branched);
  assert.equal(await page.inputValue('#simulations'), '1');

  // Set-up: a board string is a position to play on; a transcript replays from the start; bad text is refused.
  const position = referenceBoard('f5d6c3d3'); // black, the person, to move
  await page.fill('#record-text', position);
  await page.click('#set-up');
  await page.waitForFunction(() => window.othelloZero.state().status === 'your-move');
  assert.equal((await pageState(page)).board, position);
  assert.equal((await pageState(page)).transcript, '');
  await page.fill('#record-text', 'f5 d6 c3 d3 c4');
  await page.click('#set-up');
  await page.waitForFunction(() => window.othelloZero.state().status === 'your-move');
  assert.equal((await pageState(page)).board, referenceBoard(`${(await pageState(page)).transcript}`));
  assert.match((await pageState(page)).transcript, /^f5 d6 c3 d3 c4/);
  await page.fill('#record-text', 'f5 a1');
  await page.click('#set-up');
  assert.match(await page.textContent('#record-error'), /^Not a game: move 2 \(a1\)/);
  assert.deepEqual(errors, []);
});

test('keys play, the board is a labelled grid, hints and the graph show, and the audit finds nothing serious', { skip }, async () => {
  const { page, errors } = await openPage(session.browser, session.server, '');
  await page.selectOption('#simulations', '1');
  // Tab reaches the board.
  let focused = null;
  for (let presses = 0; presses < 40 && !focused; presses++) {
    await page.keyboard.press('Tab');
    focused = await page.evaluate(() => (document.activeElement?.getAttribute('role') === 'gridcell' ? document.activeElement.dataset.square : null));
  }
  assert.ok(focused, 'Tab never reached the board');
  // From the focused square to d3 by arrow keys, then Enter plays it.
  const [col, row] = [focused.charCodeAt(0) - 97, Number(focused[1]) - 1];
  const keys = [...Array(Math.abs(3 - col)).fill(col < 3 ? 'ArrowRight' : 'ArrowLeft'), ...Array(Math.abs(2 - row)).fill(row < 2 ? 'ArrowDown' : 'ArrowUp')];
  for (const key of keys) await page.keyboard.press(key);
  assert.equal(await page.evaluate(() => document.activeElement.dataset.square), 'd3');
  assert.match(await page.getAttribute('[data-square="d3"]', 'aria-label'), /^d3, empty, legal move/);
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => window.othelloZero.state().status === 'your-move' && window.othelloZero.state().transcript.startsWith('d3 '));
  assert.equal(await page.getAttribute('#status', 'aria-live'), 'polite');
  assert.match(await page.getAttribute('[data-square="d3"]', 'aria-label'), /^d3, black/);

  // Hints: a winning chance on every legal square, in its label too.
  await page.check('#hints');
  await page.waitForFunction(() => document.querySelectorAll('.cell[data-hint]').length === window.othelloZero.state().legal.length);
  const hint = await page.getAttribute('.cell[data-hint]', 'aria-label');
  assert.match(hint, /legal move, you win \d+%/);
  // The graph has a point for each position the network has seen: the start, its answer, the person's turn now.
  assert.match(await page.getAttribute('#graph', 'aria-label'), /, 3 positions; here \d+%$/);

  const axe = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
  await page.addScriptTag({ path: axe });
  const violations = await page.evaluate(async () => (await window.axe.run()).violations
    .filter((v) => ['serious', 'critical'].includes(v.impact)).map((v) => `${v.id}: ${v.help} (${v.nodes.length})`));
  assert.deepEqual(violations, []);
  assert.deepEqual(errors, []);
});

test('a network that cannot be loaded leaves a page that works', { skip }, async () => {
  const { page, errors } = await openPage(session.browser, session.server, '?model=nowhere/', { viewport: PHONE, until: 'error' });
  // The board is drawn all the same, the error stays, and Load with what the field now holds plays the shipped one.
  assert.equal(await page.locator('.cell').count(), 64);
  assert.match(await page.textContent('#load-error'), /^Could not load nowhere\/: .*404/);
  await page.click('#model-form button[type="submit"]');
  await page.waitForFunction(() => window.othelloZero.state().status === 'your-move');
  assert.ok(await page.isHidden('#load-error'));
  assert.ok(!page.url().includes('model='), page.url());
  // Another network by its URL: the address bar follows it.
  await page.fill('#model-url', '../networks/othello-6x6/export/');
  await page.click('#model-form button[type="submit"]');
  await page.waitForFunction(() => window.othelloZero.state().status === 'your-move' && window.othelloZero.state().board.length === 38);
  assert.match(page.url(), /\?model=\.\.%2Fnetworks%2Fothello-6x6%2Fexport%2F$/);
  // A failed load keeps the game in play and its error in sight after the next move.
  await page.fill('#model-url', 'nowhere/');
  await page.click('#model-form button[type="submit"]');
  await page.waitForFunction(() => !document.getElementById('load-error').hidden);
  await page.waitForFunction(() => window.othelloZero.state().status === 'your-move');
  await playFirstLegal(page);
  assert.match(await page.textContent('#load-error'), /Could not load nowhere\/: .*The game goes on with the network loaded before\./);
  assert.equal((await pageState(page)).board.length, 38);
  assert.equal(await page.inputValue('#model-url'), '../networks/othello-6x6/export/');
  assert.deepEqual(errors.filter((e) => !e.includes('404')), []);
});

test('from 12 empties the page gives the exact result, as othello-zero solves it, and marks it on the graph', { skip }, async () => {
  const { page, errors } = await openPage(session.browser, session.server, '');
  // Ten empties, black (the person) to move.
  const position = referenceBoard('OOOOXXX-XXOXOX--OOOXXX-XOOXOOXOOOOOXXXX-OOOOXO-XO-OOOXO--XXXXXX- X');
  const out = othelloZero(['solve', position]);
  const [, best, score] = out.stdout.match(/best (\S+) score ([+-]?\d+)/);
  await page.fill('#record-text', position);
  await page.click('#set-up');
  await page.waitForFunction(() => window.othelloZero.state().status === 'your-move');
  const side = position.endsWith('X') ? 'black' : 'white';
  const n = Number(score);
  const winner = n === 0 ? 'a draw' : `${n > 0 ? side : side === 'black' ? 'white' : 'black'} wins by ${Math.abs(n)}`;
  assert.equal(await page.textContent('#exact'), `Exact: ${winner}, playing ${best.split(',').join(', ')}.`);
  assert.equal(await page.locator('#graph circle.exact').count(), 1);
  assert.deepEqual(errors, []);
});
