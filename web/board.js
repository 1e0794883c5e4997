// The page's board: a grid of labelled squares built once per size, updated in place (so that focus stays where
// it is and a flipped disc can turn), played by pointer or keyboard (arrow keys move, Enter or Space plays).

import { blackDiscs, squareName, whiteDiscs } from './src/index.js';

export class Board {
  /** Builds the grid for `size` in `element`; `onPlay(square)` is called when a person plays a square. */
  constructor(element, size, onPlay) {
    this.element = element;
    this.size = size;
    this.onPlay = onPlay;
    this.cells = new Map(); // square -> cell
    this.focus = 2 * 8 + 3; // d3, a first move on every size's board once clamped
    element.setAttribute('role', 'grid');
    element.style.gridTemplateColumns = `1.2em repeat(${size}, 1fr)`;
    element.style.gridTemplateRows = `1.2em repeat(${size}, 1fr)`;
    const row = () => {
      const r = document.createElement('div');
      r.setAttribute('role', 'row');
      r.className = 'row';
      return r;
    };
    const header = (text, role) => {
      const cell = document.createElement('div');
      cell.className = 'label';
      cell.setAttribute('role', role);
      cell.textContent = text;
      return cell;
    };
    const top = row();
    top.append(header('', 'columnheader'), ...[...'abcdefgh'.slice(0, size)].map((c) => header(c, 'columnheader')));
    const rows = [top];
    for (let r = 0; r < size; r++) {
      const line = row();
      line.append(header(String(r + 1), 'rowheader'));
      for (let c = 0; c < size; c++) {
        const sq = r * 8 + c;
        const cell = document.createElement('div');
        cell.className = 'cell';
        cell.setAttribute('role', 'gridcell');
        cell.dataset.square = squareName(sq);
        cell.tabIndex = -1;
        cell.addEventListener('click', () => {
          this.focus = sq;
          onPlay(sq);
        });
        this.cells.set(sq, cell);
        line.append(cell);
      }
      rows.push(line);
    }
    element.replaceChildren(...rows);
    this.focus = Math.min(this.focus, (size - 1) * 8 + size - 1);
    element.onkeydown = (e) => this.key(e);
  }

  key(e) {
    const [r, c] = [Math.floor(this.focus / 8), this.focus % 8];
    const last = this.size - 1;
    const moves = {
      ArrowUp: [Math.max(0, r - 1), c], ArrowDown: [Math.min(last, r + 1), c],
      ArrowLeft: [r, Math.max(0, c - 1)], ArrowRight: [r, Math.min(last, c + 1)],
      Home: [r, 0], End: [r, last],
    };
    if (moves[e.key]) {
      const [nr, nc] = moves[e.key];
      this.moveFocus(nr * 8 + nc);
    } else if (e.key === 'Enter' || e.key === ' ') {
      this.onPlay(this.focus);
    } else {
      return;
    }
    e.preventDefault();
  }

  moveFocus(sq) {
    this.cells.get(this.focus).tabIndex = -1;
    this.focus = sq;
    const cell = this.cells.get(sq);
    cell.tabIndex = 0;
    cell.focus();
  }

  /**
   * Shows `pos`: `legal` the squares the person may play, `last` the move that led here, `hints` a map of square
   * to the person's winning chance after it. Discs whose colour changed since the last call turn over.
   */
  show(pos, { legal = 0n, last = null, hints = null }) {
    const [black, white] = [blackDiscs(pos), whiteDiscs(pos)];
    for (const [sq, cell] of this.cells) {
      const bit = 1n << BigInt(sq);
      const colour = black & bit ? 'black' : white & bit ? 'white' : null;
      let disc = cell.querySelector('.disc');
      if (colour && !disc) {
        disc = document.createElement('div');
        cell.append(disc);
      } else if (!colour && disc) {
        disc.remove();
        disc = null;
      }
      if (disc) {
        const was = disc.dataset.colour;
        disc.className = `disc ${colour}`;
        disc.dataset.colour = colour;
        // Restarting the animation needs a reflow between removing the class and adding it again.
        if (was && was !== colour) {
          disc.classList.remove('flipped');
          void disc.offsetWidth;
          disc.classList.add('flipped');
        }
      }
      const isLegal = Boolean(legal & bit);
      cell.classList.toggle('legal', isLegal);
      cell.classList.toggle('last', last === sq);
      const hint = isLegal && hints?.has(sq) ? Math.round(100 * hints.get(sq)) : null;
      if (hint === null) delete cell.dataset.hint;
      else cell.dataset.hint = String(hint);
      const parts = [squareName(sq), colour ?? 'empty'];
      if (isLegal) parts.push('legal move');
      if (hint !== null) parts.push(`you win ${hint}%`);
      if (last === sq) parts.push('last move');
      cell.setAttribute('aria-label', parts.join(', '));
      cell.tabIndex = sq === this.focus ? 0 : -1;
    }
  }
}
