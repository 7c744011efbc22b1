import { button, defineTemplate, opt, req } from './layout';

const BILLING_REASON = 'You received this email because you have a paid account with us.';

/** Line items as a data table, the total in its last row. */
const lineItems = `
<table class="data" width="100%" cellpadding="0" cellspacing="0" border="0">
  <thead>
    <tr><th scope="col">Item</th><th scope="col" class="amount" style="text-align: right;">Amount</th></tr>
  </thead>
  <tbody>
{{#items}}
    <tr><td>{{ description }}</td><td class="amount" style="text-align: right;">{{ amount }}</td></tr>
{{/items}}
    <tr class="total"><td>Total</td><td class="amount" style="text-align: right;">{{ total }}</td></tr>
  </tbody>
</table>`;

const sampleItems = [
  { description: 'Pro plan, monthly', amount: '$49.00' },
  { description: 'Extra seats (3)', amount: '$30.00' },
  { description: 'Sales tax', amount: '$7.11' },
];

export const receipt = defineTemplate({
  id: 'gallery_receipt',
  name: 'Receipt',
  category: 'billing',
  description: 'Confirms a payment went through, with line items and the payment method.',
  subject: 'Your receipt from {{ company_name }} ({{ receipt_number }})',
  title: 'Receipt {{ receipt_number }}',
  preheader: 'We received your payment of {{ total }}.',
  reason: BILLING_REASON,
  content: `
<h1>Thanks for your payment</h1>
<p>Hi {{ first_name }}, we received {{ total }} on {{ paid_at }}, charged to {{ payment_method }}.</p>
<p class="muted">Receipt {{ receipt_number }}</p>
${lineItems}
${button('action_url', 'View receipt')}`,
  variables: [req('first_name'), req('receipt_number'), req('paid_at'), req('payment_method'), req('items'), req('total'), req('action_url')],
  samples: {
    first_name: 'Dana',
    receipt_number: 'R-2025-0311',
    paid_at: 'March 4, 2025',
    payment_method: 'Visa ending in 4242',
    items: sampleItems,
    total: '$86.11',
    action_url: 'https://app.acme.example.com/billing/receipts/R-2025-0311',
  },
});

export const invoice = defineTemplate({
  id: 'gallery_invoice',
  name: 'Invoice',
  category: 'billing',
  description: 'Sends an invoice with line items, the amount due and the due date.',
  subject: 'Invoice {{ invoice_number }} from {{ company_name }}: {{ total }} due {{ due_date }}',
  title: 'Invoice {{ invoice_number }}',
  preheader: '{{ total }} due on {{ due_date }}.',
  reason: BILLING_REASON,
  content: `
<h1>Invoice {{ invoice_number }}</h1>
<table role="presentation" class="details" width="100%" cellpadding="0" cellspacing="0" border="0" style="margin: 0 0 16px 0;">
  <tr><td class="label">Billed to</td><td>{{ customer_name }}</td></tr>
  <tr><td class="label">Issued</td><td>{{ issued_at }}</td></tr>
  <tr><td class="label">Due</td><td>{{ due_date }}</td></tr>
</table>
${lineItems}
${button('action_url', 'Pay invoice')}
<p class="muted">Download the <a href="{{ pdf_url }}">invoice as PDF</a>.</p>`,
  variables: [req('invoice_number'), req('customer_name'), req('issued_at'), req('due_date'), req('items'), req('total'), req('action_url'), req('pdf_url')],
  samples: {
    invoice_number: 'INV-1042',
    customer_name: 'Northwind Traders Ltd.',
    issued_at: 'March 1, 2025',
    due_date: 'March 31, 2025',
    items: sampleItems,
    total: '$86.11',
    action_url: 'https://app.acme.example.com/billing/invoices/INV-1042/pay',
    pdf_url: 'https://app.acme.example.com/billing/invoices/INV-1042.pdf',
  },
});

export const trialEnding = defineTemplate({
  id: 'gallery_trial_ending',
  name: 'Trial ending',
  category: 'billing',
  description: 'Reminds a user that their free trial ends soon and how to keep their account.',
  subject: 'Your {{ product_name }} trial ends in {{ days_left }} days',
  title: 'Your trial ends soon',
  preheader: 'Choose a plan by {{ trial_end_date }} to keep your work.',
  reason: 'You received this email because you started a free trial.',
  content: `
<h1>Your trial ends in {{ days_left }} days</h1>
<p>Hi {{ first_name }}, your free trial of {{ product_name }} ends on <strong>{{ trial_end_date }}</strong>. Pick a plan to keep your projects, data and settings.</p>
${button('action_url', 'Choose a plan')}
<p class="muted">If you do nothing, your account switches to the {{ fallback_plan }} plan.</p>`,
  variables: [req('first_name'), req('product_name'), req('days_left'), req('trial_end_date'), req('action_url'), opt('fallback_plan', 'free')],
  samples: {
    first_name: 'Dana',
    product_name: 'Acme Cloud',
    days_left: '3',
    trial_end_date: 'March 7, 2025',
    action_url: 'https://app.acme.example.com/billing/plans',
    fallback_plan: 'free',
  },
});

export const paymentFailed = defineTemplate({
  id: 'gallery_payment_failed',
  name: 'Payment failed',
  category: 'billing',
  description: 'Tells a customer a charge was declined and asks them to update the payment method.',
  subject: 'Action needed: your payment of {{ amount }} failed',
  title: 'Your payment failed',
  preheader: 'Update your payment method to keep your subscription.',
  reason: BILLING_REASON,
  content: `
<h1>We could not process your payment</h1>
<p>Hi {{ first_name }}, the charge of <strong>{{ amount }}</strong> to {{ payment_method }} was declined ({{ failure_reason }}).</p>
<p class="notice">We will try again on {{ retry_date }}. Update your payment method before then to avoid an interruption.</p>
${button('action_url', 'Update payment method')}`,
  variables: [req('first_name'), req('amount'), req('payment_method'), opt('failure_reason', 'declined by the bank'), req('retry_date'), req('action_url')],
  samples: {
    first_name: 'Dana',
    amount: '$86.11',
    payment_method: 'Visa ending in 4242',
    failure_reason: 'insufficient funds',
    retry_date: 'March 7, 2025',
    action_url: 'https://app.acme.example.com/billing/payment-method',
  },
});
