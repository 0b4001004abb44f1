// Bar charts drawn as SVG from numbers the gateway returned. Each chart is
// described for screen readers (role img, a label) and carries its numbers
// as a table beside it, so what the bars show can be read exactly.
import { h, svg, table } from './dom.js';

const WIDTH = 640;
const HEIGHT = 180;
const PAD_LEFT = 56;
const PAD_BOTTOM = 28;

// points: [{label, value (a number), text (the value as shown)}]
export function barChart(title, points, { unit = '', testId } = {}) {
  const max = Math.max(0, ...points.map((p) => p.value));
  const plotW = WIDTH - PAD_LEFT - 8;
  const plotH = HEIGHT - PAD_BOTTOM - 8;
  const step = points.length ? plotW / points.length : plotW;
  const barW = Math.max(2, Math.min(48, step * 0.7));
  const bars = points.map((p, i) => {
    const height = max > 0 ? (p.value / max) * plotH : 0;
    const x = PAD_LEFT + i * step + (step - barW) / 2;
    const y = 8 + plotH - height;
    return svg(
      'rect',
      { x: x.toFixed(1), y: y.toFixed(1), width: barW.toFixed(1), height: height.toFixed(1), class: 'bar',
        'data-label': p.label, 'data-value': p.text },
      svg('title', null, `${p.label}: ${p.text}${unit}`),
    );
  });
  const labelEvery = Math.max(1, Math.ceil(points.length / 8));
  const labels = points.map((p, i) =>
    i % labelEvery === 0
      ? svg('text', { x: (PAD_LEFT + i * step + step / 2).toFixed(1), y: HEIGHT - 10, class: 'axis',
                      'text-anchor': 'middle' }, shorten(p.label))
      : null,
  );
  const chart = svg(
    'svg',
    { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: 'img', 'aria-label': `${title}: ${points.length} bars`,
      class: 'chart' },
    svg('line', { x1: PAD_LEFT, y1: 8 + plotH, x2: WIDTH - 8, y2: 8 + plotH, class: 'axis-line' }),
    svg('text', { x: PAD_LEFT - 6, y: 16, class: 'axis', 'text-anchor': 'end' }, compact(max)),
    svg('text', { x: PAD_LEFT - 6, y: 8 + plotH, class: 'axis', 'text-anchor': 'end' }, '0'),
    bars,
    labels,
  );
  return h(
    'figure',
    { class: 'chart-box', 'data-testid': testId },
    h('figcaption', null, title),
    chart,
    h('details', null, h('summary', null, 'Numbers'),
      table(title, [['', (p) => p.label], [unit ? `value (${unit.trim()})` : 'value', (p) => p.text]], points)),
  );
}

function shorten(label) {
  const s = String(label);
  return s.length > 13 ? `${s.slice(0, 12)}…` : s;
}

function compact(n) {
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)}M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)}k`;
  if (Number.isInteger(n)) return String(n);
  return n < 1 ? String(Number(n.toPrecision(2))) : n.toFixed(2);
}

// A bar of parts of a whole (a budget's spent, reserved and remaining).
export function stackBar(label, parts, whole) {
  const total = whole > 0 ? whole : parts.reduce((s, p) => s + p.value, 0) || 1;
  return h(
    'div',
    { class: 'stack', role: 'img', 'aria-label': `${label}: ${parts.map((p) => `${p.name} ${p.text}`).join(', ')}` },
    parts.map((p) => {
      const el = h('span', { class: `part ${p.kind}`, title: `${p.name}: ${p.text}` });
      el.style.width = `${Math.min(100, (p.value / total) * 100).toFixed(2)}%`;
      return el;
    }),
  );
}
