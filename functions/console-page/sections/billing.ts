// Billing: the plan, checkout (Stripe's hosted page) and the customer portal; a deployment without
// Stripe answers 503 billing_not_configured, shown as a plain explanation.
import { field, view, type Section } from '../section';

const markup = view(
  'billing',
  'Billing',
  `<div id="billing-plan"></div>
<form id="checkout-form" class="inline">${field('checkout-plan', 'Plan', '<select id="checkout-plan" name="plan"><option>starter</option><option>pro</option><option>growth</option><option>scale</option></select>')}
${field('checkout-period', 'Billed', '<select id="checkout-period" name="period"><option value="month">monthly</option><option value="year">yearly</option></select>')}
<button type="submit">Checkout</button></form>
<p><button type="button" id="billing-portal">Manage billing in the portal</button></p>`,
);

const script = String.raw`
const NOT_CONFIGURED = 'Billing is not set up on this deployment (no Stripe keys): every account here uses the free plan. Ask the operator if you need more.';
const billingFailure = (error) => {
  if (error.code !== 'billing_not_configured') throw error;
  $('billing-plan').replaceChildren(el('p', { class: 'badge warn' }, NOT_CONFIGURED));
  $('checkout-form').hidden = true;
  $('billing-portal').hidden = true;
};
/** Follows a Stripe link the API answered; only an https link is followed. */
const follow = (url) => {
  if (!/^https:\/\//.test(url)) throw new ApiFailure('The billing link is not https.', 502, 'bad_link');
  location.assign(url);
};
views.billing = {
  wire() {
    onSubmit($('checkout-form'), async (f) => {
      try {
        const r = await api('POST', '/v1/billing/checkout', { plan: f.plan, period: f.period });
        if (r.url) return follow(r.url);
        say('Plan changed to ' + r.plan + '.');
        await views.billing.load();
      } catch (error) {
        billingFailure(error);
      }
    });
    $('billing-portal').addEventListener('click', () => void attempt(async () => {
      try {
        follow((await api('POST', '/v1/billing/portal')).url);
      } catch (error) {
        billingFailure(error);
      }
    })());
  },
  async load() {
    $('checkout-form').hidden = false;
    $('billing-portal').hidden = false;
    try {
      const b = await api('GET', '/v1/billing');
      $('billing-plan').replaceChildren(el('p', {}, 'Plan ', el('strong', {}, b.plan), ' (' + b.subscription_status + '), ' + b.included_allotment + ' messages included' + (b.recurring_interval ? ', billed per ' + b.recurring_interval : '') + '.'));
    } catch (error) {
      billingFailure(error);
    }
  },
};
`;

export const billingSection: Section = { markup, script, nav: [{ view: 'billing', label: 'Billing' }] };
