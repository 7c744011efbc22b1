import { button, defineTemplate, opt, req } from './layout';

const ORDER_REASON = 'You received this email because you placed an order with us.';

export const orderConfirmation = defineTemplate({
  id: 'gallery_order_confirmation',
  name: 'Order confirmation',
  category: 'commerce',
  description: 'Confirms an order with its items, totals and shipping address.',
  subject: 'Order {{ order_number }} confirmed',
  title: 'Order {{ order_number }} confirmed',
  preheader: 'Thanks for your order. We will let you know when it ships.',
  reason: ORDER_REASON,
  content: `
<h1>Thanks for your order, {{ first_name }}</h1>
<p>We have received order <strong>{{ order_number }}</strong> and are getting it ready. We will email you when it ships.</p>
<table class="data" width="100%" cellpadding="0" cellspacing="0" border="0">
  <thead>
    <tr><th scope="col">Item</th><th scope="col">Qty</th><th scope="col" class="amount" style="text-align: right;">Price</th></tr>
  </thead>
  <tbody>
{{#items}}
    <tr><td>{{ name }}</td><td>{{ quantity }}</td><td class="amount" style="text-align: right;">{{ price }}</td></tr>
{{/items}}
    <tr><td colspan="2">Shipping</td><td class="amount" style="text-align: right;">{{ shipping }}</td></tr>
    <tr class="total"><td colspan="2">Total</td><td class="amount" style="text-align: right;">{{ total }}</td></tr>
  </tbody>
</table>
<h2>Shipping to</h2>
<p>{{ shipping_name }}<br>{{ shipping_address }}</p>
${button('action_url', 'View your order')}`,
  variables: [req('first_name'), req('order_number'), req('items'), req('shipping'), req('total'), req('shipping_name'), req('shipping_address'), req('action_url')],
  samples: {
    first_name: 'Dana',
    order_number: '#10482',
    items: [
      { name: 'Merino crew sweater, navy, M', quantity: '1', price: '$89.00' },
      { name: 'Wool socks, 3-pack', quantity: '2', price: '$36.00' },
    ],
    shipping: '$5.00',
    total: '$130.00',
    shipping_name: 'Dana Reyes',
    shipping_address: '12 Rua das Flores, 4050-262 Porto, Portugal',
    action_url: 'https://shop.acme.example.com/orders/10482',
  },
});

export const shippingUpdate = defineTemplate({
  id: 'gallery_shipping_update',
  name: 'Shipping update',
  category: 'commerce',
  description: 'Tells a customer their order is on its way, with the carrier and tracking link.',
  subject: 'Your order {{ order_number }} is {{ status }}',
  title: 'Order {{ order_number }}: {{ status }}',
  preheader: 'Estimated delivery: {{ estimated_delivery }}.',
  reason: ORDER_REASON,
  content: `
<h1>Your order is {{ status }}</h1>
<p>Hi {{ first_name }}, order <strong>{{ order_number }}</strong> is {{ status }} with {{ carrier }}. Estimated delivery: <strong>{{ estimated_delivery }}</strong>.</p>
<table role="presentation" class="details" width="100%" cellpadding="0" cellspacing="0" border="0" style="margin: 0 0 16px 0;">
  <tr><td class="label">Carrier</td><td>{{ carrier }}</td></tr>
  <tr><td class="label">Tracking number</td><td>{{ tracking_number }}</td></tr>
</table>
<p>In this shipment:</p>
<ul style="margin: 0 0 16px 0; padding-left: 20px;">
{{#items}}
  <li>{{ name }} &times; {{ quantity }}</li>
{{/items}}
</ul>
${button('tracking_url', 'Track your package')}`,
  variables: [req('first_name'), req('order_number'), opt('status', 'on its way'), req('carrier'), req('tracking_number'), req('estimated_delivery'), req('items'), req('tracking_url')],
  samples: {
    first_name: 'Dana',
    order_number: '#10482',
    status: 'on its way',
    carrier: 'DHL Express',
    tracking_number: 'JD014600006281230704',
    estimated_delivery: 'Thursday, March 6',
    items: [
      { name: 'Merino crew sweater, navy, M', quantity: '1' },
      { name: 'Wool socks, 3-pack', quantity: '2' },
    ],
    tracking_url: 'https://track.acme.example.com/JD014600006281230704',
  },
});

export const backInStock = defineTemplate({
  id: 'gallery_back_in_stock',
  name: 'Back in stock',
  category: 'commerce',
  description: 'Lets a shopper know a product they asked about is available again.',
  subject: '{{ product_name }} is back in stock',
  title: '{{ product_name }} is back',
  preheader: 'The item you were waiting for is available again.',
  reason: 'You received this email because you asked to hear when this item is back.',
  content: `
<h1>It is back: {{ product_name }}</h1>
<img src="{{ image_url }}" alt="{{ product_name }}" width="536" class="hero" style="display: block; width: 100%; max-width: 536px; height: auto; margin: 0 0 16px 0;">
<p>Good news, {{ first_name }}: <strong>{{ product_name }}</strong> is available again for {{ price }}. Stock is limited, so we cannot hold it for you.</p>
${button('action_url', 'Shop now')}`,
  variables: [req('first_name'), req('product_name'), req('image_url'), req('price'), req('action_url')],
  samples: {
    first_name: 'Dana',
    product_name: 'Merino crew sweater, navy',
    image_url: 'https://cdn.acme.example.com/products/merino-crew-navy.jpg',
    price: '$89.00',
    action_url: 'https://shop.acme.example.com/products/merino-crew-navy',
  },
});
