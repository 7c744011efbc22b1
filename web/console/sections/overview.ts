// Overview: the account, whether it is in sandbox (and in test mode until the address is verified),
// and the next step out of it (verify the address → register a domain → publish its DNS records →
// verify it), or once live the next useful steps (an API key to send with, a webhook for the
// events); a test message to the person's own address (from the shared sender in the sandbox,
// from a verified domain once live) through POST /v1/send, with a link to its timeline; the
// account's sending reputation (GET /v1/usage → reputation).
import type { Ok } from '../../../client/src/index';
import { api } from '../api';
import { $, el, say } from '../dom';
import { refreshSession, signOuts, type View } from '../router';
import { type Session, session } from '../state';
import { onSubmit } from '../ui';
import { isVerified } from './domains';

type Domain = Ok<'/v1/domains', 'get'>['domains'][number];
type Reputation = Ok<'/v1/usage', 'get'>['reputation'];
interface Step {
  done: boolean;
  text: string;
  href?: string;
}

const pct = (x: number): string => `${(x * 100).toFixed(2)}%`;

function steps(s: Session, own: Domain[], verified: Domain[]): Step[] {
  // Live, the way out of the sandbox is behind: the steps are what sending for real takes next.
  if (!s.sandbox) {
    return [
      { done: false, text: 'Create an API key and send from your code with POST /v1/send.', href: '#/keys' },
      { done: false, text: 'Add a webhook to hear of deliveries, bounces and complaints.', href: '#/webhooks' },
      { done: false, text: 'Or send yourself a test message below.' },
    ];
  }
  return [
    { done: s.user.email_verified, text: `Verify your email address: open the link we mailed to ${s.user.email}.` },
    { done: own.length > 0, text: 'Register a sending domain.', href: '#/domains' },
    { done: own.some((d) => d.dkim_status !== 'pending'), text: 'Add its DNS records at your DNS provider.', href: '#/domains' },
    { done: verified.length > 0, text: 'Verify the domain.', href: '#/domains' },
  ];
}

function account(s: Session, r: Reputation): HTMLElement[] {
  const warning = r.state === 'paused' ? '. Live sending is paused: contact support.' : r.state === 'warned' ? '. Warning: close to having live sending paused.' : '.';
  return [
    el('p', {}, 'Account ', el('strong', {}, s.account_name), ` (${s.account_id}), signed in as ${s.user.email}${s.user.role === 'staff' ? ' (staff)' : ''}.`),
    el(
      'p',
      { class: s.sandbox ? 'badge warn' : 'badge ok' },
      s.sandbox ? 'Sandbox: mail goes only to your own address and to verified test recipients, from the shared sender.' : 'Live: mail goes from your verified domains to anyone.',
    ),
    // The sending reputation (issue 32): hard bounces and complaints over the last 7 days' sends.
    el(
      'p',
      { id: 'overview-reputation', class: r.state === 'ok' ? '' : 'badge warn' },
      `Reputation, last 7 days: ${r.sends} sends, bounce rate ${pct(r.bounce_rate)}, complaint rate ${pct(r.complaint_rate)}${warning}`,
    ),
    // Until the address is verified the session acts in test mode (docs/threat-model.md).
    ...(s.user.email_verified
      ? []
      : [el('p', { id: 'overview-test-mode' }, 'You are in test mode until you verify your email address: what you send is not delivered, and domains, live keys and contacts wait until then.')]),
  ];
}

async function load(): Promise<void> {
  $('test-send-result').replaceChildren();
  const outs = signOuts();
  try {
    await refreshSession();
    const [{ domains }, usage] = await Promise.all([api((c) => c.domains.list()), api((c) => c.usage.get())]);
    draw(session(), domains, usage.reputation);
  } catch (error) {
    // Signed out while this loaded (the sign-out button): the page has said so, and this says nothing over it.
    if (signOuts() !== outs) return;
    throw error;
  }
}

function draw(s: Session, domains: Domain[], reputation: Reputation): void {
  // The list holds the built-in sandbox domain too (sandbox: true): the steps count the account's own.
  const own = domains.filter((d) => !d.sandbox);
  const verified = own.filter(isVerified);
  const list = steps(s, own, verified);
  $('overview-steps-title').textContent = s.sandbox ? 'Leave the sandbox' : 'Next steps';
  const next = list.findIndex((st) => !st.done);
  $<HTMLInputElement>('test-send-to').value = s.user.email;
  $('test-send-from').replaceChildren(
    ...(s.sandbox ? [el('option', { value: '' }, 'The shared sender (sandbox)')] : verified.map((d) => el('option', { value: `test@${d.domain}` }, `test@${d.domain}`))),
  );
  $('overview-body').replaceChildren(...account(s, reputation));
  $('overview-steps').replaceChildren(
    ...list.map((st, i) =>
      el(
        'li',
        { class: st.done ? 'done' : i === next ? 'next' : '' },
        el('span', { class: 'visually-hidden' }, st.done ? 'Done: ' : i === next ? 'Next: ' : 'To do: '),
        st.href && !st.done ? el('a', { href: st.href }, st.text) : st.text,
      ),
    ),
  );
}

const overview: View = {
  wire() {
    onSubmit<'subject' | 'from'>($('test-send-form'), async (f) => {
      // One key per submit: the client's retries of this request are the same send.
      const sent = await api((c) =>
        c.send({
          channel: 'email',
          idempotency_key: `console-test-${crypto.randomUUID()}`,
          destination: { email: session().user.email },
          payload: { subject: f.subject, body_text: 'A test message sent from the Postbox console.' },
          ...(f.from ? { metadata: { from_email: f.from } } : {}),
        }),
      );
      $('test-send-result').replaceChildren(
        el('p', { role: 'status' }, `Accepted: message ${sent.id} is ${sent.status}. `, el('a', { href: `#/messages/${encodeURIComponent(sent.id)}` }, 'Open its timeline')),
      );
      say('Test message accepted.');
    });
  },
  load,
};

export const overviewViews: Record<string, View> = { overview };
