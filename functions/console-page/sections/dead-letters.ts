// Staff only: what sits in each queue's DLQ and why it failed (GET /v1/admin/dead-letters), and
// putting messages back on their queue once the fault is fixed, one or all of a queue (POST
// /v1/admin/dead-letters/{queue}/redrive, audited). Issue 32. A DLQ deeper than 10 shows a sample.
import { view, type Section } from '../section';

const markup = view(
  'dead-letters',
  'Dead letters',
  `<p class="hint">Messages a consumer gave up on after its queue's attempts, with the reason it noted. Fix the cause, then put them back on their queue; one that fails again comes back here.</p>
<p><button type="button" id="dead-letters-refresh">Refresh</button></p><div id="dead-letters-list"></div>`,
);

const script = String.raw`
views['dead-letters'] = {
  staff: true,
  wire() {
    $('dead-letters-refresh').addEventListener('click', () => void attempt(() => views['dead-letters'].load())());
  },
  async load() {
    const { queues } = await api('GET', '/v1/admin/dead-letters');
    const redrive = async (q, ids) => {
      const r = await api('POST', '/v1/admin/dead-letters/' + encodeURIComponent(q.queue) + '/redrive', ids ? { ids } : {});
      const n = r.redriven.length;
      say('Put ' + n + (n === 1 ? ' message' : ' messages') + ' back on the ' + q.queue + ' queue.');
      await views['dead-letters'].load();
    };
    const held = queues.filter((q) => q.depth > 0);
    const parts = held.map((q) => el('section', { class: 'dlq', 'aria-label': 'The ' + q.queue + ' DLQ' },
      el('h3', {}, q.queue + ': ' + q.depth + (q.depth === 1 ? ' message' : ' messages') + (q.depth > q.items.length ? ' (' + q.items.length + ' shown)' : '')),
      button('Put all back', async () => {
        if (!confirm('Put every message of the ' + q.queue + ' DLQ back on its queue?')) return;
        await redrive(q);
      }, { 'aria-label': 'Put every message of the ' + q.queue + ' DLQ back on its queue' }),
      table('The ' + q.queue + ' DLQ', ['Why it failed', 'Last failed', 'Body', ''], q.items.map((m) => [
        m.reason || 'No reason noted (the consumer timed out or stopped)',
        m.last_failed_at ? when(m.last_failed_at) + ', after ' + m.receive_count + (m.receive_count === 1 ? ' try' : ' tries') : '',
        el('code', {}, m.body_preview + (m.body_truncated ? '\u2026' : '')),
        button('Put back', () => redrive(q, [m.id]), { 'aria-label': 'Put message ' + m.id + ' back on the ' + q.queue + ' queue' }),
      ]), 'Only a count: the sample came back empty, refresh to look again.')));
    $('dead-letters-list').replaceChildren(...(parts.length ? parts : [el('p', { class: 'empty' }, 'Every dead-letter queue is empty.')]));
  },
};
`;

export const deadLettersSection: Section = { markup, script, nav: [{ view: 'dead-letters', label: 'Dead letters', staff: true }] };
