// Staff only: what sits in each queue's DLQ and why it failed (GET /v1/admin/dead-letters), and
// putting messages back on their queue once the fault is fixed, one or all of a queue (POST
// /v1/admin/dead-letters/{queue}/redrive, audited). Issue 32. A DLQ deeper than 10 shows a sample.
import type { Ok } from '../../../client/src/index';
import { api } from '../api';
import { $, el, say, when } from '../dom';
import type { View } from '../router';
import { attempt, button, table } from '../ui';

type Queue = Ok<'/v1/admin/dead-letters', 'get'>['queues'][number];
type Item = Queue['items'][number];

const plural = (n: number | null, one: string, many: string): string => `${n}${n === 1 ? one : many}`;

async function redrive(q: Queue, ids?: string[]): Promise<void> {
  const r = await api((c) => c.admin.redriveDeadLetters(q.queue, ids ? { ids } : {}));
  say(`Put ${plural(r.redriven.length, ' message', ' messages')} back on the ${q.queue} queue.`);
  await load();
}

const itemRow = (q: Queue, m: Item) => [
  m.reason || 'No reason noted (the consumer timed out or stopped)',
  m.last_failed_at ? `${when(m.last_failed_at)}, after ${plural(m.receive_count, ' try', ' tries')}` : '',
  el('code', {}, m.body_preview + (m.body_truncated ? '\u2026' : '')),
  button('Put back', () => redrive(q, [m.id]), { 'aria-label': `Put message ${m.id} back on the ${q.queue} queue` }),
];

function queuePart(q: Queue): HTMLElement {
  const shown = q.depth > q.items.length ? ` (${q.items.length} shown)` : '';
  const putAll = async () => {
    if (!confirm(`Put every message of the ${q.queue} DLQ back on its queue?`)) return;
    await redrive(q);
  };
  return el(
    'section',
    { class: 'dlq', 'aria-label': `The ${q.queue} DLQ` },
    el('h3', {}, `${q.queue}: ${plural(q.depth, ' message', ' messages')}${shown}`),
    button('Put all back', putAll, { 'aria-label': `Put every message of the ${q.queue} DLQ back on its queue` }),
    table(`The ${q.queue} DLQ`, ['Why it failed', 'Last failed', 'Body', ''], q.items.map((m) => itemRow(q, m)), 'Only a count: the sample came back empty, refresh to look again.'),
  );
}

async function load(): Promise<void> {
  const { queues } = await api((c) => c.admin.listDeadLetters());
  const parts = queues.filter((q) => q.depth > 0).map(queuePart);
  $('dead-letters-list').replaceChildren(...(parts.length ? parts : [el('p', { class: 'empty' }, 'Every dead-letter queue is empty.')]));
}

const deadLetters: View = {
  staff: true,
  wire() {
    $('dead-letters-refresh').addEventListener('click', () => void attempt(load)());
  },
  load,
};

export const deadLetterViews: Record<string, View> = { 'dead-letters': deadLetters };
