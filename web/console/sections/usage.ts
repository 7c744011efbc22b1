// Usage: the month's numbers per channel (GET /v1/usage), and a chart of messages per day and
// channel over the last 30 days, counted from the message list (the API keeps usage per month, not
// per day), drawn here as inline SVG.
import type { MessagesPage } from '../../../client/src/index';
import { api, present } from '../api';
import { $, el } from '../dom';
import type { View } from '../router';
import { table } from '../ui';

const SVG = 'http://www.w3.org/2000/svg';
const DAY_MS = 86_400_000;
// Colours of the channels' bars: each at 3:1 or more against white (non-text contrast).
const CHANNEL_COLOURS: Record<string, string> = { email: '#1f4fa3', sms: '#8a5a00', push: '#0f766e', voice: '#9d174d', webhook: '#5b21b6' };

function svg(tag: string, attrs: Record<string, string | number>, ...kids: Array<Node | string>): SVGElement {
  const node = document.createElementNS(SVG, tag) as SVGElement;
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  node.append(...kids);
  return node;
}

/** Counts per UTC day and channel ("YYYY-MM-DD channel") of the messages created in the last 30 days (at most 10 pages of 100). */
async function dailyCounts(now: number): Promise<Map<string, number>> {
  const since = new Date(now - 29 * DAY_MS).toISOString().slice(0, 10);
  const counts = new Map<string, number>();
  let cursor: string | null = null;
  for (let page = 0; page < 10; page += 1) {
    const after: string | null = cursor;
    const got: MessagesPage = await api((c) => c.messages.list(present({ limit: 100, cursor: after })));
    for (const m of got.messages) {
      const day = m.created_at.slice(0, 10);
      if (day < since) return counts;
      const key = `${day} ${m.channel}`;
      counts.set(key, (counts.get(key) || 0) + 1);
    }
    cursor = got.next_cursor;
    if (!cursor) break;
  }
  return counts;
}

function bars(days: string[], channels: string[], counts: Map<string, number>, max: number, box: { W: number; H: number; pad: number }): SVGElement[] {
  const { W, H, pad } = box;
  const bw = (W - pad) / days.length;
  const drawn: SVGElement[] = [];
  days.forEach((d, i) => {
    let y = H - pad;
    for (const c of channels) {
      const n = counts.get(`${d} ${c}`) || 0;
      if (!n) continue;
      const h = ((H - 2 * pad) * n) / max;
      y -= h;
      drawn.push(svg('rect', { x: pad + i * bw + 1, y, width: Math.max(1, bw - 2), height: h, fill: CHANNEL_COLOURS[c] ?? '' }, svg('title', {}, `${d}: ${n} ${c}`)));
    }
  });
  return drawn;
}

function drawChart(counts: Map<string, number>, now: number): void {
  const days = Array.from({ length: 30 }, (_, i) => new Date(now - (29 - i) * DAY_MS).toISOString().slice(0, 10));
  const channels = Object.keys(CHANNEL_COLOURS).filter((c) => days.some((d) => counts.get(`${d} ${c}`)));
  const totals = days.map((d) => channels.reduce((n, c) => n + (counts.get(`${d} ${c}`) || 0), 0));
  const max = Math.max(1, ...totals);
  const [W, H, pad] = [600, 200, 24];
  const axis = [
    svg('line', { x1: pad, y1: H - pad, x2: W, y2: H - pad, stroke: '#4b5563' }),
    svg('text', { x: 0, y: pad, 'font-size': 11, fill: '#1d2330' }, String(max)),
    svg('text', { x: pad, y: H - 6, 'font-size': 11, fill: '#1d2330' }, days[0] ?? ''),
    svg('text', { x: W, y: H - 6, 'font-size': 11, fill: '#1d2330', 'text-anchor': 'end' }, days[days.length - 1] ?? ''),
  ];
  const total = totals.reduce((a, b) => a + b, 0);
  const label = `${total} messages in the last 30 days, per day and channel`;
  $('usage-chart').replaceChildren(svg('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': label, class: 'chart' }, ...axis, ...bars(days, channels, counts, max, { W, H, pad })));
  $('usage-legend').replaceChildren(
    el('ul', { class: 'legend' }, ...channels.map((c) => el('li', { 'data-channel': c }, el('span', { class: `swatch swatch-${c}`, 'aria-hidden': 'true' }), c))),
    table(
      'Messages per day',
      ['Day', ...channels],
      days.filter((_, i) => totals[i]).map((d) => [d, ...channels.map((c) => String(counts.get(`${d} ${c}`) || 0))]),
      'No messages in the last 30 days.',
    ),
  );
}

const usage: View = {
  async load() {
    const now = Date.now();
    const u = await api((c) => c.usage.get());
    const money = (micros: number, digits: number): string => (micros / 1e6).toFixed(digits);
    $('usage-month').replaceChildren(
      el('p', {}, `${u.period}: ${u.total_send_count} sends, ${u.broadcast_send_count} broadcast sends, estimated spend $${money(u.total_cost_micros, 2)}.`),
      table(
        `Usage in ${u.period}`,
        ['Channel', 'Sends', 'Broadcast sends', 'Cost (USD)'],
        u.channels.map((c) => [c.channel, String(c.send_count), String(c.broadcast_send_count), money(c.cost_micros, 4)]),
      ),
    );
    drawChart(await dailyCounts(now), now);
  },
};

export const usageViews: Record<string, View> = { usage };
