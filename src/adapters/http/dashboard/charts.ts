// The dashboard's charts (issue 32): inline SVG drawn on the server, no
// script, no style attribute (the CSP allows neither), only presentation
// attributes. Every chart is an image with a title and a text alternative
// (role="img", aria-label), and its numbers in a table for anyone who
// prefers them, a screen reader first. Values are bigint base units; they
// become floats only here, for the coordinates, and are printed with the
// caller's `format`, exactly.
import { html, table, type Html } from './html.js';

export interface ChartSeries {
  name: string;
  /** One value per label, bigint base units. */
  values: readonly bigint[];
}

export interface LineChartOptions {
  /** Unique in the page: the ids of the chart's title and table derive from it. */
  id: string;
  title: string;
  /** The x axis, one label per point (e.g. days, oldest first). */
  labels: readonly string[];
  series: readonly ChartSeries[];
  /** A value as people read it, e.g. Amount.ofUnits(asset, v).toString(). */
  format: (v: bigint) => string;
  /** The y axis's name, e.g. the asset or USD. */
  unit: string;
}

const W = 640;
const H = 260;
const PAD = { left: 120, right: 16, top: 36, bottom: 44 };
const COLOURS = ['#0b57d0', '#b42318', '#1a7f37', '#8250df'] as const;
/** Colour is not the only difference between two lines. */
const DASHES = [null, '7 5', '2 4', '10 3 2 3'] as const;

const fixed = (n: number): string => n.toFixed(1);

/** Where the y axis starts and ends: it always shows 0, and a flat line gets some room. */
function range(values: readonly bigint[]): { low: bigint; high: bigint } {
  let low = 0n;
  let high = 0n;
  for (const v of values) {
    if (v < low) low = v;
    if (v > high) high = v;
  }
  return { low, high: high === low ? low + 1n : high };
}

/** A line chart of one or more series over the same labels. */
export function lineChart(o: LineChartOptions): Html {
  const all = o.series.flatMap((s) => s.values);
  const { low, high } = range(all);
  const span = Number(high - low);
  const n = o.labels.length;
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const x = (i: number) => PAD.left + (n <= 1 ? plotW / 2 : (plotW * i) / (n - 1));
  const y = (v: bigint) => PAD.top + plotH - (plotH * Number(v - low)) / span;
  const ticks = [low, low + (high - low) / 2n, high];
  const xTicks = n === 0 ? [] : [...new Set([0, Math.floor((n - 1) / 2), n - 1])];
  const last = (s: ChartSeries) => (s.values.length > 0 ? o.format(s.values[s.values.length - 1]!) : 'no data');
  const summary = `${o.title}. ${o.labels[0] ?? ''} to ${o.labels[n - 1] ?? ''}. ${o.series
    .map((s) => `${s.name}: from ${s.values.length > 0 ? o.format(s.values[0]!) : 'no data'} to ${last(s)} ${o.unit}`)
    .join('; ')}.`;

  const lines = o.series.map((s, k) => {
    const colour = COLOURS[k % COLOURS.length]!;
    const dash = DASHES[k % DASHES.length];
    const points = s.values.map((v, i) => `${fixed(x(i))},${fixed(y(v))}`).join(' ');
    return s.values.length === 1
      ? html`<circle cx="${fixed(x(0))}" cy="${fixed(y(s.values[0]!))}" r="4" fill="${colour}"/>`
      : html`<polyline points="${points}" fill="none" stroke="${colour}" stroke-width="2.5" stroke-linejoin="round"${dash ? html` stroke-dasharray="${dash}"` : ''}/>`;
  });
  const legend = o.series.map((s, k) => {
    const colour = COLOURS[k % COLOURS.length]!;
    const dash = DASHES[k % DASHES.length];
    const lx = PAD.left + k * 230;
    return html`<line x1="${lx}" y1="14" x2="${lx + 28}" y2="14" stroke="${colour}" stroke-width="2.5"${dash ? html` stroke-dasharray="${dash}"` : ''}/><text x="${lx + 34}" y="18" font-size="12" fill="#1b1f24">${s.name}</text>`;
  });

  return html`<figure class="chart" id="${o.id}">
<svg viewBox="0 0 ${W} ${H}" xmlns="http://www.w3.org/2000/svg" role="img" aria-label="${summary}" focusable="false">
<title>${o.title}</title>
<desc>${summary}</desc>
<rect x="0" y="0" width="${W}" height="${H}" fill="#ffffff"/>
${ticks.map(
  (t) => html`<line x1="${PAD.left}" y1="${fixed(y(t))}" x2="${W - PAD.right}" y2="${fixed(y(t))}" stroke="#d0d7de" stroke-width="1"/>
<text x="${PAD.left - 6}" y="${fixed(y(t) + 4)}" font-size="11" text-anchor="end" fill="#57606a">${o.format(t)}</text>`,
)}
<line x1="${PAD.left}" y1="${PAD.top}" x2="${PAD.left}" y2="${PAD.top + plotH}" stroke="#8c959f" stroke-width="1"/>
${xTicks.map((i) => html`<text x="${fixed(x(i))}" y="${H - PAD.bottom + 18}" font-size="11" text-anchor="middle" fill="#57606a">${o.labels[i] ?? ''}</text>`)}
<text x="${PAD.left + plotW / 2}" y="${H - 6}" font-size="11" text-anchor="middle" fill="#57606a">Day (UTC)</text>
<text x="12" y="${PAD.top + plotH / 2}" font-size="11" text-anchor="middle" fill="#57606a" transform="rotate(-90 12 ${PAD.top + plotH / 2})">${o.unit}</text>
${lines}
${legend}
</svg>
<figcaption>${o.title}</figcaption>
<details><summary>The numbers</summary>${table(
    `${o.title} (${o.unit})`,
    ['Day', ...o.series.map((s) => s.name)],
    o.labels.map((label, i) => [label, ...o.series.map((s) => (s.values[i] === undefined ? '—' : o.format(s.values[i]!)))]),
  )}</details>
</figure>`;
}
