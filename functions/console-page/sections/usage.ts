// Usage: the month's numbers per channel (GET /v1/usage), and a chart of messages per day and
// channel over the last 30 days, counted from the message list (the API keeps usage per month, not
// per day), drawn here as inline SVG.
import { view, type Section } from '../section';

const markup = view('usage', 'Usage', `<div id="usage-month"></div><h3>Messages per day, last 30 days</h3><div id="usage-chart"></div><div id="usage-legend"></div>`);

const script = String.raw`
const SVG = 'http://www.w3.org/2000/svg';
// Colours of the channels' bars: each at 3:1 or more against white (non-text contrast).
const CHANNEL_COLOURS = { email: '#1f4fa3', sms: '#8a5a00', push: '#0f766e', voice: '#9d174d', webhook: '#5b21b6' };
const svg = (tag, attrs, ...kids) => {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  node.append(...kids);
  return node;
};

/** Counts per UTC day and channel of the messages created in the last 30 days (at most 10 pages of 100). */
async function dailyCounts(now) {
  const since = new Date(now - 29 * 86400000).toISOString().slice(0, 10);
  const counts = new Map();
  let cursor = null;
  for (let page = 0; page < 10; page += 1) {
    const got = await api('GET', '/v1/messages' + query({ limit: 100, cursor }));
    for (const m of got.messages) {
      const day = m.created_at.slice(0, 10);
      if (day < since) return counts;
      const key = day + ' ' + m.channel;
      counts.set(key, (counts.get(key) || 0) + 1);
    }
    cursor = got.next_cursor;
    if (!cursor) break;
  }
  return counts;
}

function drawChart(counts, now) {
  const days = Array.from({ length: 30 }, (_, i) => new Date(now - (29 - i) * 86400000).toISOString().slice(0, 10));
  const channels = Object.keys(CHANNEL_COLOURS).filter((c) => days.some((d) => counts.get(d + ' ' + c)));
  const totals = days.map((d) => channels.reduce((n, c) => n + (counts.get(d + ' ' + c) || 0), 0));
  const max = Math.max(1, ...totals);
  const W = 600, H = 200, pad = 24, bw = (W - pad) / days.length;
  const bars = [];
  days.forEach((d, i) => {
    let y = H - pad;
    for (const c of channels) {
      const n = counts.get(d + ' ' + c) || 0;
      if (!n) continue;
      const h = ((H - 2 * pad) * n) / max;
      y -= h;
      bars.push(svg('rect', { x: pad + i * bw + 1, y, width: Math.max(1, bw - 2), height: h, fill: CHANNEL_COLOURS[c] }, svg('title', {}, d + ': ' + n + ' ' + c)));
    }
  });
  const axis = [
    svg('line', { x1: pad, y1: H - pad, x2: W, y2: H - pad, stroke: '#4b5563' }),
    svg('text', { x: 0, y: pad, 'font-size': 11, fill: '#1d2330' }, String(max)),
    svg('text', { x: pad, y: H - 6, 'font-size': 11, fill: '#1d2330' }, days[0]),
    svg('text', { x: W, y: H - 6, 'font-size': 11, fill: '#1d2330', 'text-anchor': 'end' }, days[days.length - 1]),
  ];
  const total = totals.reduce((a, b) => a + b, 0);
  $('usage-chart').replaceChildren(svg('svg', { viewBox: '0 0 ' + W + ' ' + H, role: 'img', 'aria-label': total + ' messages in the last 30 days, per day and channel', class: 'chart' }, ...axis, ...bars));
  $('usage-legend').replaceChildren(
    el('ul', { class: 'legend' }, ...channels.map((c) => el('li', { 'data-channel': c }, el('span', { class: 'swatch swatch-' + c, 'aria-hidden': 'true' }), c))),
    table('Messages per day', ['Day'].concat(channels), days.filter((d, i) => totals[i]).map((d) => [d].concat(channels.map((c) => String(counts.get(d + ' ' + c) || 0)))), 'No messages in the last 30 days.'),
  );
}

views.usage = {
  async load() {
    const now = Date.now();
    const u = await api('GET', '/v1/usage');
    $('usage-month').replaceChildren(
      el('p', {}, u.period + ': ' + u.total_send_count + ' sends, ' + u.broadcast_send_count + ' broadcast sends, estimated spend $' + (u.total_cost_micros / 1e6).toFixed(2) + '.'),
      table('Usage in ' + u.period, ['Channel', 'Sends', 'Broadcast sends', 'Cost (USD)'], u.channels.map((c) => [c.channel, String(c.send_count), String(c.broadcast_send_count), (c.cost_micros / 1e6).toFixed(4)])),
    );
    drawChart(await dailyCounts(now), now);
  },
};
`;

export const usageSection: Section = { markup, script, nav: [{ view: 'usage', label: 'Usage' }] };
