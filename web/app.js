// The page: a person against an exported network. Everything it knows of Othello and of the network comes from the
// module in src/ and the export's model card; the board (board.js) and the game record (record.js) are the page's.

import * as ort from './node_modules/onnxruntime-web/dist/ort.wasm.min.mjs';
import { Board } from './board.js';
import { drawGraph } from './graph.js';
import { GameRecord } from './record.js';
import {
  Network, PASS, blackDiscs, boardString, legalMoves, outcome, parseRules, playLegal, popcount, search, squareName,
  solve, squares, startPosition, status, whiteDiscs,
} from './src/index.js';

const RUNTIME = new URL('./node_modules/onnxruntime-web/dist/', import.meta.url).href;
ort.env.wasm.wasmPaths = RUNTIME;
ort.env.wasm.numThreads = 1; // threads need a cross-origin isolated page; a plain static server gives none

const DEFAULT_MODEL = '../networks/othello-8x8/export/';
const SOLVED_EMPTIES = 12; // the page solves exactly from here: well under a second
const SAVED = 'othello-zero-page'; // localStorage: the game and the settings, for a reload
const $ = (id) => document.getElementById(id);

const game = {
  net: null, // the network, its evaluations one at a time (a search and a hint never run together)
  rules: parseRules('othello'), // the board drawn before any network is loaded
  source: null, // the network's URL, for the address bar and a reload
  board: null,
  record: null,
  human: 'black',
  searching: null, // the AbortController of the search in flight: navigation, undo or a new game abandon it
  thinking: false, // the network is searching its move
  notices: [], // the passes since the person last moved, announced one by one
  hints: null, // square -> the person's winning chance after it, for the position shown
};

const colourName = (c) => (c === 'black' ? 'Black' : 'White');
const chanceForBlack = (side, value) => (side === 'black' ? (1 + value) / 2 : (1 - value) / 2);

/** One evaluation at a time through one ONNX Runtime session, whoever asks. */
function serialised(net) {
  let queue = Promise.resolve();
  const evaluate = (positions, rules) => {
    const result = queue.then(() => net.evaluate(positions, rules));
    queue = result.catch(() => {});
    return result;
  };
  return { card: net.card, rules: net.rules, evaluate };
}

/** A file's bytes, reporting progress as they arrive. */
async function download(url, onProgress) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: ${response.status} ${response.statusText}`);
  const total = Number(response.headers.get('content-length')) || 0;
  const reader = response.body.getReader();
  const chunks = [];
  let received = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    received += value.length;
    onProgress(received, total);
  }
  const bytes = new Uint8Array(received);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.length;
  }
  return bytes;
}

function progress(label) {
  const bar = $('loading');
  bar.hidden = false;
  return (received, total) => {
    bar.max = total || received;
    bar.value = received;
    const of = total ? ` of ${(total / 1e6).toFixed(1)}` : '';
    $('loading-label').textContent = `${label}: ${(received / 1e6).toFixed(1)}${of} MB`;
  };
}

// The runtime's WebAssembly (about 12 MB) fetched once, with its progress shown, and handed to ONNX Runtime; a
// failed fetch is tried again at the next load.
let runtime = null;
function loadRuntime() {
  runtime ??= download(`${RUNTIME}ort-wasm-simd-threaded.wasm`, progress('The runtime')).then(
    (bytes) => {
      ort.env.wasm.wasmBinary = bytes;
    },
    (e) => {
      runtime = null;
      throw e;
    },
  );
  return runtime;
}

async function fromUrl(url) {
  const dir = url.endsWith('/') ? url : `${url}/`;
  const response = await fetch(`${dir}model-card.json`);
  if (!response.ok) throw new Error(`${dir}model-card.json: ${response.status} ${response.statusText}`);
  const card = await response.json();
  const bytes = await download(`${dir}model.onnx`, progress('The network'));
  await loadRuntime();
  return Network.fromBytes(ort, card, bytes);
}

async function fromFiles(files) {
  const find = (test) => [...files].find((f) => test(f.name));
  const cardFile = find((n) => n.endsWith('.json') && n.includes('card'));
  const onnxFile = find((n) => n.endsWith('.onnx'));
  if (!cardFile || !onnxFile) throw new Error('choose model.onnx and model-card.json of one export');
  const card = JSON.parse(await cardFile.text());
  await loadRuntime();
  return Network.fromBytes(ort, card, new Uint8Array(await onnxFile.arrayBuffer()));
}

/**
 * Loads a network; `source` is its URL (null for files). A failure leaves the game as it was, with the error
 * shown until the next load: the field goes back to the network in play.
 */
async function loadNetwork(load, label, source) {
  stopSearch();
  $('load-error').hidden = true;
  setStatus('loading', `Loading ${label}...`);
  try {
    const net = await load();
    game.net = serialised(net);
    game.source = source;
    const url = new URL(location.href);
    if (source && source !== DEFAULT_MODEL) url.searchParams.set('model', source);
    else url.searchParams.delete('model');
    history.replaceState(null, '', url);
    const card = net.card;
    const { blocks, filters } = card.architecture;
    $('model-info').textContent = `${label}: ${card.rules}, ${blocks}x${filters}, step ${card.training.step}`;
    setRules(net.rules);
    game.record = null;
    if (!restore()) newGame();
  } catch (e) {
    const still = game.net ? '. The game goes on with the network loaded before.' : '';
    $('load-error').textContent = `Could not load ${label}: ${e.message}${still}`;
    $('load-error').hidden = false;
    $('model-url').value = game.source ?? DEFAULT_MODEL;
    if (game.net) advance();
    else setStatus('error', 'No network: Load above plays the shipped one.');
  } finally {
    $('loading').hidden = true;
    $('loading-label').textContent = '';
  }
}

function setRules(rules) {
  game.rules = rules;
  game.board = new Board($('board'), rules.size, onSquare);
}

/** Abandons the search in flight, if any: its promise rejects and its move is never played. */
function stopSearch() {
  game.searching?.abort();
  game.searching = null;
  game.thinking = false;
}

function newGame() {
  stopSearch();
  game.human = $('colour').value;
  game.record = new GameRecord(game.rules, startPosition(game.rules));
  game.notices = [];
  advance();
}

/** Shows position `index` of the record; at its end, play goes on. */
function goTo(index) {
  stopSearch();
  game.record.goTo(index);
  game.notices = [];
  advance();
}

/** Back to the person's previous turn; the moves taken back stay ahead (forward redoes them). */
function undo() {
  const r = game.record;
  if (!r) return;
  for (let i = r.cursor - 1; i >= 0; i--) {
    if (r.positions[i].side === game.human && status(game.rules, r.positions[i]) === 'moves') return goTo(i);
  }
}

/**
 * From the position shown at the record's end: plays forced passes and the network's moves until it is the
 * person's turn or the game is over, then works out what the page shows of that position.
 */
async function advance() {
  const r = game.record;
  const searching = new AbortController();
  game.searching = searching;
  const abandoned = () => searching.signal.aborted || r !== game.record;
  game.hints = null;
  while (r.atEnd) {
    const pos = r.position;
    const state = status(game.rules, pos);
    if (state === 'over') {
      const { winner } = outcome(game.rules, pos);
      r.values[r.cursor] = winner === null ? 0.5 : winner === 'black' ? 1 : 0;
      break;
    }
    if (state === 'pass') {
      game.notices.push(`${colourName(pos.side)} has no move and passes.`);
      r.play(PASS);
      continue;
    }
    if (pos.side === game.human) break;
    game.thinking = true;
    render();
    const options = { sims: Number($('simulations').value), gumbel: Number($('root').value), batch: 8, yieldMs: 30 };
    let result;
    try {
      result = await search(game.net, game.rules, pos, { ...options, signal: searching.signal });
    } catch (e) {
      if (abandoned()) return;
      throw e;
    }
    if (abandoned()) return;
    game.thinking = false;
    r.analyses[r.cursor] = { ...result, side: pos.side };
    r.values[r.cursor] = chanceForBlack(pos.side, result.value);
    r.play(result.move);
  }
  render();
  await evaluateShown(searching);
}

/** The network's view of the position shown where it has none yet, and the hints where asked for. */
async function evaluateShown(searching) {
  const r = game.record;
  const pos = r.position;
  if (status(game.rules, pos) !== 'moves') return;
  const wanted = r.values[r.cursor] === undefined && !r.solved[r.cursor];
  const hinted = $('hints').checked && pos.side === game.human;
  if (!wanted && !hinted) return;
  const moves = hinted ? squares(legalMoves(game.rules, pos)) : [];
  const children = moves.map((sq) => playLegal(game.rules, pos, sq));
  const evaluations = await game.net.evaluate([pos, ...children]);
  if (searching.signal.aborted || r !== game.record || r.position !== pos) return;
  r.values[r.cursor] = chanceForBlack(pos.side, evaluations[0].value);
  if (hinted) {
    // A child's value is its side to move's: after a pass that is the person again.
    const mine = (child, e) => (child.side === pos.side ? (1 + e.value) / 2 : (1 - e.value) / 2);
    game.hints = new Map(moves.map((sq, k) => [sq, mine(children[k], evaluations[k + 1])]));
  }
  render();
}

function onSquare(sq) {
  const r = game.record;
  if (!r || !game.net) return;
  const pos = r.position;
  if (game.thinking || pos.side !== game.human || status(game.rules, pos) !== 'moves') return;
  if (!((legalMoves(game.rules, pos) >> BigInt(sq)) & 1n)) return;
  stopSearch();
  game.notices = [];
  r.play(sq); // from an earlier position, this drops the moves ahead
  advance();
}

function setStatus(state, text) {
  $('status').dataset.state = state;
  $('status').textContent = text;
}

/** The exact result of the position shown, where it has few enough empties; its value is then exact. */
function solveShown() {
  const r = game.record;
  const pos = r.position;
  if (r.solved[r.cursor] === undefined && status(game.rules, pos) !== 'over') {
    r.solved[r.cursor] = solve(game.rules, pos, { maxEmpties: SOLVED_EMPTIES });
  }
  const solved = r.solved[r.cursor];
  if (!solved) return null;
  const score = pos.side === 'black' ? solved.score : -solved.score;
  r.values[r.cursor] = score > 0 ? 1 : score < 0 ? 0 : 0.5;
  return solved;
}

/** `Exact: white wins by 6, playing d3, f4.`, or nothing where the position was not solved. */
function describeSolved(solved, side) {
  if (!solved) return '';
  const winner = solved.score > 0 ? side : side === 'black' ? 'white' : 'black';
  const result = solved.score === 0 ? 'a draw' : `${winner} wins by ${Math.abs(solved.score)}`;
  const best = solved.best.map(squareName).join(', ');
  return `Exact: ${result}${best ? `, playing ${best}` : ''}.`;
}

function render() {
  const r = game.record;
  const thinking = game.thinking;
  const pos = r.position;
  $('exact').textContent = describeSolved(solveShown(), pos.side);
  const state = status(game.rules, pos);
  const humanToMove = !thinking && state === 'moves' && pos.side === game.human;
  game.board.show(pos, {
    legal: humanToMove ? legalMoves(game.rules, pos) : 0n,
    last: r.cursor ? r.line[r.cursor - 1] : null,
    hints: humanToMove && $('hints').checked ? game.hints : null,
  });
  const [black, white] = [popcount(blackDiscs(pos)), popcount(whiteDiscs(pos))];
  const notices = game.notices.join(' ');
  if (state === 'over') {
    const result = outcome(game.rules, pos);
    const winner = result.winner === null ? 'A draw' : result.winner === game.human ? 'You win' : 'The network wins';
    setStatus('over', `${notices} Game over: ${winner}, ${result.black}-${result.white}.`.trim());
    $('score').textContent = `Black ${black} · White ${white}`;
  } else {
    if (thinking) setStatus('thinking', `${notices} The network (${pos.side}) is thinking...`.trim());
    else if (humanToMove) setStatus('your-move', `${notices} Your move (${pos.side}).`.trim());
    else setStatus('review', `Move ${r.cursor} of ${r.line.length}, ${pos.side} to move: go forward to play on.`);
    $('score').textContent = `Black ${black} · White ${white} · ${colourName(pos.side)} to move`;
  }
  renderRecord();
  renderAnalysis();
  drawGraph($('graph'), r.values, r.solved, r.line.length, r.cursor, goTo);
  save();
}

function renderRecord() {
  const r = game.record;
  const items = r.line.map((move, i) => {
    const item = document.createElement('li');
    const button = document.createElement('button');
    button.textContent = squareName(move);
    button.setAttribute('aria-label', `move ${i + 1}, ${r.positions[i].side} ${squareName(move)}`);
    if (i + 1 === r.cursor) button.setAttribute('aria-current', 'step');
    if (i + 1 > r.cursor) button.classList.add('ahead');
    button.addEventListener('click', () => goTo(i + 1));
    item.append(button);
    return item;
  });
  $('moves').replaceChildren(...items);
  $('first').disabled = $('back').disabled = r.cursor === 0;
  $('forward').disabled = $('last').disabled = r.atEnd;
  // The transcript follows the game unless the person is writing one of their own there.
  const text = $('record-text');
  if (!text.value || text.value === text.dataset.shown) text.value = r.transcript();
  text.dataset.shown = r.transcript();
}

/** The network's view before its last move up to the position shown. */
function renderAnalysis() {
  const r = game.record;
  const body = $('top-moves').tBodies[0];
  body.replaceChildren();
  let i = r.cursor - 1;
  while (i >= 0 && !r.analyses[i]) i--;
  if (i < 0) {
    $('evaluation').textContent = '-';
    return;
  }
  const a = r.analyses[i];
  const win = (v) => `${(50 * (1 + v)).toFixed(0)}%`;
  const margin = a.margin >= 0 ? `+${a.margin.toFixed(1)}` : a.margin.toFixed(1);
  const move = `${i + 1} (${squareName(r.line[i])})`;
  const view = `${colourName(a.side)} wins ${win(a.value)} (margin ${margin} discs)`;
  $('evaluation').textContent = `Before its move ${move}: ${view}`;
  for (const child of a.children.slice(0, 5)) {
    const row = body.insertRow();
    const name = squareName(child.move);
    const q = child.q === null ? '-' : win(child.q);
    const cells = [name, `${(100 * child.prior).toFixed(1)}%`, String(child.visits), q];
    for (const text of cells) row.insertCell().textContent = text;
  }
}

function save() {
  try {
    const r = game.record;
    localStorage.setItem(SAVED, JSON.stringify({
      model: game.source, human: game.human, level: $('simulations').value, root: $('root').value,
      hints: $('hints').checked, start: r.startBoard(startPosition(game.rules)), line: r.transcript(), cursor: r.cursor,
    }));
  } catch {
    // storage refused (a private window): the page works without it
  }
}

function saved() {
  try {
    return JSON.parse(localStorage.getItem(SAVED)) ?? null;
  } catch {
    return null;
  }
}

/** The saved game, where it was played against the network now loaded; false where there is none. */
function restore() {
  const s = saved();
  if (!s || s.model !== game.source) return false;
  try {
    const start = s.start ? GameRecord.fromText(game.rules, null, s.start).position : startPosition(game.rules);
    const record = GameRecord.fromText(game.rules, start, s.line);
    record.goTo(s.cursor);
    game.record = record;
    game.human = s.human;
    advance();
    return true;
  } catch {
    return false;
  }
}

function setUp() {
  $('record-error').hidden = true;
  try {
    const text = $('record-text').value;
    const record = GameRecord.fromText(game.rules, startPosition(game.rules), text);
    stopSearch();
    game.human = $('colour').value;
    game.record = record;
    game.notices = [];
    $('record-text').value = '';
    advance();
  } catch (e) {
    $('record-error').textContent = `Not a game: ${e.message}`;
    $('record-error').hidden = false;
  }
}

async function copyRecord() {
  const text = game.record?.transcript() ?? '';
  try {
    await navigator.clipboard.writeText(text);
    $('copied').textContent = 'Copied.';
  } catch {
    $('record-text').select();
    $('copied').textContent = 'Selected: copy it with Ctrl+C.';
  }
}

const s = saved();
if (s) {
  $('colour').value = s.human ?? 'black';
  $('simulations').value = s.level ?? '200';
  $('root').value = s.root ?? '16';
  $('hints').checked = Boolean(s.hints);
}
setRules(game.rules);
game.board.show(startPosition(game.rules), {}); // the board at once, while the runtime and the network load

const ready = (f) => () => game.record && f();
$('new-game').addEventListener('click', ready(() => newGame()));
$('undo').addEventListener('click', ready(undo));
$('first').addEventListener('click', ready(() => goTo(0)));
$('back').addEventListener('click', ready(() => goTo(game.record.cursor - 1)));
$('forward').addEventListener('click', ready(() => goTo(game.record.cursor + 1)));
$('last').addEventListener('click', ready(() => goTo(game.record.line.length)));
$('colour').addEventListener('change', ready(() => newGame()));
$('hints').addEventListener('change', ready(() => {
  save();
  if (!game.thinking) evaluateShown(game.searching ?? new AbortController());
}));
$('simulations').addEventListener('change', ready(save));
$('root').addEventListener('change', ready(save));
$('set-up').addEventListener('click', ready(setUp));
$('copy').addEventListener('click', ready(copyRecord));
$('model-form').addEventListener('submit', (e) => {
  e.preventDefault();
  const url = $('model-url').value.trim();
  loadNetwork(() => fromUrl(url), url, url);
});
$('model-files').addEventListener('change', (e) => {
  loadNetwork(() => fromFiles(e.target.files), 'the chosen files', null);
});

// For scripts driving the page (the browser test): the game as text.
window.othelloZero = {
  state: () => ({
    board: game.record ? boardString(game.record.position, game.rules.size) : null,
    transcript: game.record ? game.record.line.slice(0, game.record.cursor).map(squareName).join(' ') : '',
    status: $('status').dataset.state,
    legal: game.record ? squares(legalMoves(game.rules, game.record.position)).map(squareName) : [],
  }),
};

const initial = new URLSearchParams(location.search).get('model') || s?.model || DEFAULT_MODEL;
$('model-url').value = initial;
loadNetwork(() => fromUrl(initial), initial, initial);
