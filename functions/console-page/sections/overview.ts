// Overview: the account, whether it is in sandbox (and in test mode until the address is verified),
// and the next step out of it (verify the address → register a domain → publish its DNS records →
// verify it), or once live the next useful steps (an API key to send with, a webhook for the
// events); a test message to the person's own address (from the shared sender in the sandbox,
// from a verified domain once live) through POST /v1/send, with a link to its timeline; a link to
// the Mail app; the account's sending reputation (GET /v1/usage → reputation).
import { field, view, type Section } from '../section';

const markup = view(
  'overview',
  'Overview',
  `<div id="overview-body"></div>
<h3 id="overview-steps-title">Leave the sandbox</h3>
<ol id="overview-steps" class="steps"></ol>
<h3>Send a test message</h3>
<form id="test-send-form">${field('test-send-to', 'To (your own address)', '<input id="test-send-to" name="to" type="email" readonly>')}
${field('test-send-from', 'From', '<select id="test-send-from" name="from"></select>')}
${field('test-send-subject', 'Subject', '<input id="test-send-subject" name="subject" maxlength="200" required value="Hello from Postbox">')}
<button type="submit">Send test message</button></form>
<div id="test-send-result"></div>
<p>Read and answer mail in the <a href="/mail">Mail app</a>, signed in with this session.</p>`,
);

export const overviewSection: Section = { markup, nav: [{ view: 'overview', label: 'Overview' }] };
