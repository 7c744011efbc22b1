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

export const deadLettersSection: Section = { markup, nav: [{ view: 'dead-letters', label: 'Dead letters', staff: true }] };
