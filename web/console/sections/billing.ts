// Billing: the plan, checkout (Stripe's hosted page) and the customer portal; a deployment without
// Stripe answers 503 billing_not_configured, shown as a plain explanation.
import type { Body } from '../../../client/src/index';
import { api, failure, PostboxError } from '../api';
import { $, el, say } from '../dom';
import type { View } from '../router';
import { attempt, onSubmit } from '../ui';

type Checkout = Body<'/v1/billing/checkout', 'post'>;

const NOT_CONFIGURED = 'Billing is not set up on this deployment (no Stripe keys): every account here uses the free plan. Ask the operator if you need more.';

function billingFailure(error: unknown): void {
  if (!(error instanceof PostboxError) || error.code !== 'billing_not_configured') throw error;
  $('billing-plan').replaceChildren(el('p', { class: 'badge warn' }, NOT_CONFIGURED));
  $('checkout-form').hidden = true;
  $('billing-portal').hidden = true;
}

/** Follows a Stripe link the API answered; only an https link is followed. */
function follow(url: string): void {
  if (!/^https:\/\//.test(url)) throw failure('The billing link is not https.', 'bad_link', 502);
  location.assign(url);
}

async function load(): Promise<void> {
  $('checkout-form').hidden = false;
  $('billing-portal').hidden = false;
  try {
    const b = await api((c) => c.billing.get());
    const interval = b.recurring_interval ? `, billed per ${b.recurring_interval}` : '';
    $('billing-plan').replaceChildren(el('p', {}, 'Plan ', el('strong', {}, b.plan), ` (${b.subscription_status}), ${b.included_allotment} messages included${interval}.`));
  } catch (error) {
    billingFailure(error);
  }
}

const billing: View = {
  wire() {
    onSubmit<'plan' | 'period'>($('checkout-form'), async (f) => {
      try {
        const r = await api((c) => c.billing.checkout({ plan: f.plan as Checkout['plan'], period: f.period as Checkout['period'] }));
        if ('url' in r && r.url) return follow(r.url);
        say(`Plan changed to ${'plan' in r ? r.plan : ''}.`);
        await load();
      } catch (error) {
        billingFailure(error);
      }
    });
    $('billing-portal').addEventListener(
      'click',
      () =>
        void attempt(async () => {
          try {
            follow((await api((c) => c.billing.portal())).url);
          } catch (error) {
            billingFailure(error);
          }
        })(),
    );
  },
  load,
};

export const billingViews: Record<string, View> = { billing };
