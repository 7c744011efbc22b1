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

export const billingSection: Section = { markup, nav: [{ view: 'billing', label: 'Billing' }] };
