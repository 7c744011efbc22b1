import { button, defineTemplate, req } from './layout';

const MARKETING_REASON = 'You received this email because you subscribed to updates from us.';

export const newsletter = defineTemplate({
  id: 'gallery_newsletter',
  name: 'Newsletter',
  category: 'marketing',
  description: 'A periodic newsletter: an editor’s note (HTML) and a list of articles.',
  subject: '{{ newsletter_name }}: {{ issue_title }}',
  title: '{{ newsletter_name }}',
  preheader: '{{ issue_title }}',
  reason: MARKETING_REASON,
  content: `
<p class="muted">{{ newsletter_name }} &middot; {{ issue_date }}</p>
<h1>{{ issue_title }}</h1>
{{{ intro_html }}}
{{#articles}}
<h2><a href="{{ url }}" style="color: #111827; text-decoration: none;">{{ title }}</a></h2>
<p>{{ summary }} <a href="{{ url }}">Read more<span style="display: none;"> about {{ title }}</span></a></p>
{{/articles}}
${button('archive_url', 'Read this issue online')}`,
  variables: [req('newsletter_name'), req('issue_title'), req('issue_date'), req('intro_html'), req('articles'), req('archive_url')],
  samples: {
    newsletter_name: 'The Acme Dispatch',
    issue_title: 'Faster deploys and a new region',
    issue_date: 'March 2025',
    intro_html: '<p>Hello again! This month we shipped <strong>twice as fast</strong> deploys and opened a region in São Paulo.</p>',
    articles: [
      { title: 'How we halved deploy times', summary: 'A look at the build cache that made it possible.', url: 'https://acme.example.com/blog/faster-deploys' },
      { title: 'Hello, São Paulo', summary: 'Our newest region is live for every plan.', url: 'https://acme.example.com/blog/sao-paulo' },
      { title: 'Customer story: Northwind', summary: 'How a small team ships forty times a day.', url: 'https://acme.example.com/customers/northwind' },
    ],
    archive_url: 'https://acme.example.com/newsletter/2025-03',
  },
});

export const productAnnouncement = defineTemplate({
  id: 'gallery_product_announcement',
  name: 'Product announcement',
  category: 'marketing',
  description: 'Announces a new product or feature with an image, its highlights and a call to action.',
  subject: 'New in {{ product_name }}: {{ feature_name }}',
  title: 'Introducing {{ feature_name }}',
  preheader: '{{ tagline }}',
  reason: MARKETING_REASON,
  content: `
<img src="{{ image_url }}" alt="{{ image_alt }}" width="536" class="hero" style="display: block; width: 100%; max-width: 536px; height: auto; margin: 0 0 24px 0;">
<h1>Introducing {{ feature_name }}</h1>
<p>{{ tagline }}</p>
<ul style="margin: 0 0 16px 0; padding-left: 20px;">
{{#highlights}}
  <li style="margin: 0 0 8px 0;"><strong>{{ title }}.</strong> {{ detail }}</li>
{{/highlights}}
</ul>
${button('action_url', 'Try {{ feature_name }}')}`,
  variables: [req('product_name'), req('feature_name'), req('tagline'), req('image_url'), req('image_alt'), req('highlights'), req('action_url')],
  samples: {
    product_name: 'Acme Cloud',
    feature_name: 'Preview environments',
    tagline: 'Every pull request gets its own live copy of your app.',
    image_url: 'https://cdn.acme.example.com/announcements/preview-environments.png',
    image_alt: 'A pull request with a link to its preview environment',
    highlights: [
      { title: 'Automatic', detail: 'Created when a pull request opens, removed when it closes.' },
      { title: 'Shareable', detail: 'Send the link to anyone for review, no account needed.' },
      { title: 'Isolated', detail: 'Each preview has its own database branch.' },
    ],
    action_url: 'https://app.acme.example.com/previews',
  },
});

export const eventInvite = defineTemplate({
  id: 'gallery_event_invite',
  name: 'Event invite',
  category: 'marketing',
  description: 'Invites people to an event or webinar, with the agenda and a registration link.',
  subject: 'You are invited: {{ event_name }} on {{ event_date }}',
  title: '{{ event_name }}',
  preheader: '{{ event_date }}, {{ event_time }} at {{ event_location }}.',
  reason: MARKETING_REASON,
  content: `
<h1>{{ event_name }}</h1>
<p>Hi {{ first_name }}, join us for {{ event_name }}. {{ event_summary }}</p>
<table role="presentation" class="details" width="100%" cellpadding="0" cellspacing="0" border="0" style="margin: 0 0 16px 0;">
  <tr><td class="label">Date</td><td>{{ event_date }}</td></tr>
  <tr><td class="label">Time</td><td>{{ event_time }}</td></tr>
  <tr><td class="label">Where</td><td>{{ event_location }}</td></tr>
</table>
<h2>Agenda</h2>
<table class="data" width="100%" cellpadding="0" cellspacing="0" border="0">
  <thead>
    <tr><th scope="col">Time</th><th scope="col">Session</th></tr>
  </thead>
  <tbody>
{{#agenda}}
    <tr><td style="white-space: nowrap; padding-right: 16px;">{{ time }}</td><td>{{ session }}</td></tr>
{{/agenda}}
  </tbody>
</table>
${button('action_url', 'Save my seat')}
<p class="muted"><a href="{{ calendar_url }}">Add to calendar</a></p>`,
  variables: [req('first_name'), req('event_name'), req('event_summary'), req('event_date'), req('event_time'), req('event_location'), req('agenda'), req('action_url'), req('calendar_url')],
  samples: {
    first_name: 'Dana',
    event_name: 'Acme Live 2025',
    event_summary: 'An afternoon of talks and demos from the people who build Acme Cloud.',
    event_date: 'April 17, 2025',
    event_time: '14:00–18:00 WEST',
    event_location: 'Online and at LX Factory, Lisbon',
    agenda: [
      { time: '14:00', session: 'Keynote: what is next for Acme Cloud' },
      { time: '15:00', session: 'Live demo: preview environments' },
      { time: '16:30', session: 'Q&A with the engineering team' },
    ],
    action_url: 'https://acme.example.com/events/live-2025/register',
    calendar_url: 'https://acme.example.com/events/live-2025/calendar.ics',
  },
});
