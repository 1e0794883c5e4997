// The page: a person against an exported network. Everything it knows of Othello and of the network comes from the
// module in src/ and the export's model card.

import * as ort from './node_modules/onnxruntime-web/dist/ort.wasm.min.mjs';
import {
  Network, PASS, blackDiscs, boardString, legalMoves, outcome, passed, playLegal, popcount, search, squareName,
  squares, startPosition, status, whiteDiscs,
} from './src/index.js';

ort.env.wasm.wasmPaths = new URL('./node_modules/onnxruntime-web/dist/', import.meta.url).href;
ort.env.wasm.numThreads = 1; // threads need a cross-origin isolated page; a plain static server gives none

const DEFAULT_MODEL = '../networks/othello-8x8/export/';
const $ = (id) => document.getElementById(id);

const game = {
  net: null,
  rules: null,
  human: 'black',
  positions: [], // every position from the start
  moves: [], // the moves between them: a square or PASS
  thinking: false,
  searching: null, // the AbortController of the search in flight: a new game or an undo abandons it
  analysis: null,
  notice: '',
};

const current = () => game.positions.at(-1);
const colourName = (c) => (c === 'black' ? 'Black' : 'White');

async function loadNetwork(load, label) {
  setStatus('loading', `Loading ${label}...`);
  try {
    game.net = await load();
    game.rules = game.net.rules;
    const card = game.net.card;
    $('model-info').textContent = `${label}: ${card.rules}, ${card.architecture.blocks}x${card.architecture.filters}, step ${card.training.step}`;
    newGame();
  } catch (e) {
    setStatus('error', `Could not load ${label}: ${e.message}`);
  }
}

/** Abandons the search in flight, if any: its promise rejects and its moves are never played. */
function stopSearch() {
  game.searching?.abort();
  game.searching = null;
  game.thinking = false;
}

function newGame() {
  stopSearch();
  game.human = $('colour').value;
  game.positions = [startPosition(game.rules)];
  game.moves = [];
  game.analysis = null;
  game.notice = '';
  advance();
}

function undo() {
  if (!game.net) return;
  stopSearch();
  game.analysis = null; // the view of a move taken back
  // Back to the person's previous turn: the last position before now where they were to move with a choice.
  for (let i = game.positions.length - 2; i >= 0; i--) {
    const pos = game.positions[i];
    if (pos.side === game.human && status(game.rules, pos) === 'moves') {
      game.positions.length = i + 1;
      game.moves.length = i;
      game.notice = '';
      break;
    }
  }
  advance();
}

function playMove(move) {
  const pos = current();
  game.positions.push(move === PASS ? passed(pos) : playLegal(game.rules, pos, move));
  game.moves.push(move);
}

/** Plays forced passes and the network's moves until it is the person's turn or the game is over. */
async function advance() {
  const searching = new AbortController();
  game.searching = searching;
  for (;;) {
    const pos = current();
    const state = status(game.rules, pos);
    if (state === 'over') return render();
    if (state === 'pass') {
      game.notice = `${colourName(pos.side)} has no move and passes.`;
      playMove(PASS);
      continue;
    }
    if (pos.side === game.human) return render();
    game.thinking = true;
    render();
    const options = { sims: Number($('simulations').value), gumbel: Number($('root').value), yieldMs: 30 };
    let result;
    try {
      result = await search(game.net, game.rules, pos, { ...options, signal: searching.signal });
    } catch (e) {
      if (searching.signal.aborted) return; // a new game or an undo came meanwhile
      throw e;
    }
    game.thinking = false;
    game.analysis = { ...result, side: pos.side };
    playMove(result.move);
  }
}

function onCellClick(sq) {
  const pos = current();
  if (game.thinking || pos.side !== game.human || status(game.rules, pos) !== 'moves') return;
  if (!((legalMoves(game.rules, pos) >> BigInt(sq)) & 1n)) return;
  game.notice = '';
  playMove(sq);
  advance();
}

function setStatus(state, text) {
  $('status').dataset.state = state;
  $('status').textContent = text;
}

function render() {
  const { rules } = game;
  const pos = current();
  const size = rules.size;
  const board = $('board');
  board.style.gridTemplateColumns = `1.2em repeat(${size}, 1fr)`;
  board.style.gridTemplateRows = `1.2em repeat(${size}, 1fr)`;
  const state = status(rules, pos);
  const humanToMove = !game.thinking && state === 'moves' && pos.side === game.human;
  const legal = humanToMove ? legalMoves(rules, pos) : 0n;
  const last = game.moves.at(-1);
  const label = (text) => {
    const cell = document.createElement('div');
    cell.className = 'label';
    cell.textContent = text;
    return cell;
  };
  board.replaceChildren(label(''), ...[...'abcdefgh'.slice(0, size)].map(label));
  for (let row = 0; row < size; row++) {
    board.append(label(String(row + 1)));
    for (let col = 0; col < size; col++) {
      const sq = row * 8 + col;
      const bit = 1n << BigInt(sq);
      const cell = document.createElement('div');
      cell.className = 'cell';
      cell.dataset.square = squareName(sq);
      cell.title = squareName(sq);
      if (legal & bit) cell.classList.add('legal');
      if (last === sq) cell.classList.add('last');
      const colour = blackDiscs(pos) & bit ? 'black' : whiteDiscs(pos) & bit ? 'white' : null;
      if (colour) {
        const disc = document.createElement('div');
        disc.className = `disc ${colour}`;
        cell.append(disc);
      }
      cell.addEventListener('click', () => onCellClick(sq));
      board.append(cell);
    }
  }
  const black = popcount(blackDiscs(pos));
  const white = popcount(whiteDiscs(pos));
  $('score').textContent = `Black ${black} - White ${white}`;
  if (state === 'over') {
    const result = outcome(rules, pos);
    const winner = result.winner === null ? 'A draw' : result.winner === game.human ? 'You win' : 'The network wins';
    setStatus('over', `Game over: ${winner}, ${result.black}-${result.white}.`);
    $('score').dataset.black = result.black;
    $('score').dataset.white = result.white;
  } else if (game.thinking) {
    setStatus('thinking', `${game.notice} The network (${pos.side}) is thinking...`.trim());
  } else {
    setStatus('your-move', `${game.notice} Your move (${pos.side}).`.trim());
  }
  renderAnalysis();
  $('transcript').textContent = game.moves.map(squareName).join(' ');
}

function renderAnalysis() {
  const a = game.analysis;
  const body = $('top-moves').tBodies[0];
  body.replaceChildren();
  if (!a) {
    $('evaluation').textContent = '-';
    return;
  }
  const win = (v) => `${(50 * (1 + v)).toFixed(0)}%`;
  const margin = a.margin >= 0 ? `+${a.margin.toFixed(1)}` : a.margin.toFixed(1);
  $('evaluation').textContent = `Before its move: ${colourName(a.side)} wins ${win(a.value)} (margin ${margin} discs)`;
  for (const child of a.children.slice(0, 5)) {
    const row = body.insertRow();
    const name = squareName(child.move);
    for (const text of [name, `${(100 * child.prior).toFixed(1)}%`, String(child.visits), child.q === null ? '-' : win(child.q)]) {
      row.insertCell().textContent = text;
    }
  }
}

async function fromFiles(files) {
  const find = (test) => [...files].find((f) => test(f.name));
  const cardFile = find((n) => n.endsWith('.json') && n.includes('card'));
  const onnxFile = find((n) => n.endsWith('.onnx'));
  if (!cardFile || !onnxFile) throw new Error('choose model.onnx and model-card.json of one export');
  const card = JSON.parse(await cardFile.text());
  return Network.fromBytes(ort, card, new Uint8Array(await onnxFile.arrayBuffer()));
}

$('new-game').addEventListener('click', () => game.net && newGame());
$('undo').addEventListener('click', undo);
$('colour').addEventListener('change', () => game.net && newGame());
$('model-form').addEventListener('submit', (e) => {
  e.preventDefault();
  const url = $('model-url').value.trim();
  loadNetwork(() => Network.fromUrl(ort, url), url);
});
$('model-files').addEventListener('change', (e) => loadNetwork(() => fromFiles(e.target.files), 'the chosen files'));

// For scripts driving the page (the browser test): the game as text.
window.othelloZero = {
  state: () => ({
    board: game.rules ? boardString(current(), game.rules.size) : null,
    transcript: $('transcript').textContent,
    status: $('status').dataset.state,
    legal: game.rules ? squares(legalMoves(game.rules, current())).map(squareName) : [],
  }),
};

const initial = new URLSearchParams(location.search).get('model') || DEFAULT_MODEL;
$('model-url').value = initial;
loadNetwork(() => Network.fromUrl(ort, initial), initial);
