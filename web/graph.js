// The evaluation graph: black's winning chance after each move as the network saw it (exact, and dotted, where the
// position was solved), a line over the whole game as Egaroucid draws its own; a click goes to that move.

const SVG = 'http://www.w3.org/2000/svg';
const [WIDTH, HEIGHT] = [600, 120];

/**
 * Draws `values` (index: position, value: black's chance in [0, 1] or undefined) of a line of `moves` moves, the
 * positions `solved` (exact) marked with a dot.
 */
export function drawGraph(svg, values, solved, moves, cursor, goTo) {
  const span = Math.max(moves, 20);
  const x = (i) => (i / span) * WIDTH;
  const y = (v) => (1 - v) * HEIGHT;
  const element = (name, attributes) => {
    const e = document.createElementNS(SVG, name);
    for (const [k, v] of Object.entries(attributes)) e.setAttribute(k, v);
    return e;
  };
  const parts = [
    element('line', { class: 'even', x1: 0, y1: HEIGHT / 2, x2: WIDTH, y2: HEIGHT / 2 }),
    element('line', { class: 'cursor', x1: x(cursor), y1: 0, x2: x(cursor), y2: HEIGHT }),
  ];
  // A run of known values is one line; an unknown value (a pass) breaks it.
  let points = [];
  const flush = () => {
    if (points.length > 1) parts.push(element('polyline', { class: 'chance', points: points.join(' ') }));
    points = [];
  };
  for (let i = 0; i <= moves; i++) {
    if (values[i] === undefined) flush();
    else points.push(`${x(i).toFixed(1)},${y(values[i]).toFixed(1)}`);
  }
  flush();
  solved.forEach((s, i) => {
    if (s && values[i] !== undefined) {
      parts.push(element('circle', { class: 'exact', cx: x(i), cy: y(values[i]), r: 4 }));
    }
  });
  svg.setAttribute('viewBox', `0 0 ${WIDTH} ${HEIGHT}`);
  svg.replaceChildren(...parts);
  const known = values.filter((v) => v !== undefined);
  const now = values[cursor];
  svg.setAttribute('aria-label', `Black's winning chance as the network sees it, ${known.length} positions${
    now === undefined ? '' : `; here ${Math.round(100 * now)}%`}`);
  svg.onclick = (e) => {
    const box = svg.getBoundingClientRect();
    goTo(Math.round(((e.clientX - box.left) / box.width) * span));
  };
}
