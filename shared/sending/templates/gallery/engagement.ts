import { button, defineTemplate, opt, req } from './layout';

export const weeklyDigest = defineTemplate({
  id: 'gallery_weekly_digest',
  name: 'Weekly digest',
  category: 'engagement',
  description: 'Summarises a user’s week: a few numbers and the latest activity.',
  subject: 'Your week in {{ product_name }}: {{ week_label }}',
  title: 'Your weekly digest',
  preheader: '{{ headline }}',
  reason: 'You received this email because weekly digests are on in your notification settings.',
  content: `
<h1>Your week in {{ product_name }}</h1>
<p class="muted">{{ week_label }}</p>
<p>Hi {{ first_name }}, {{ headline }}</p>
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="margin: 0 0 16px 0;">
  <tr>
{{#stats}}
    <td class="stack" width="33%" style="padding: 8px 0; text-align: center;">
      <span style="display: block; font-size: 24px; font-weight: 700; color: #111827;">{{ value }}</span>
      <span style="display: block; font-size: 14px; color: #4b5563;">{{ label }}</span>
    </td>
{{/stats}}
  </tr>
</table>
<h2>Latest activity</h2>
<ul style="margin: 0 0 16px 0; padding-left: 20px;">
{{#activity}}
  <li style="margin: 0 0 8px 0;"><a href="{{ url }}">{{ title }}</a> <span class="muted">{{ when }}</span></li>
{{/activity}}
</ul>
${button('action_url', 'Open your dashboard')}
<p class="muted">You can change how often you get this email in your <a href="{{ preferences_url }}">notification settings</a>.</p>`,
  variables: [req('first_name'), req('product_name'), req('week_label'), req('headline'), req('stats'), req('activity'), req('action_url'), req('preferences_url')],
  samples: {
    first_name: 'Dana',
    product_name: 'Acme Cloud',
    week_label: 'February 24 – March 2, 2025',
    headline: 'your team shipped 18 deploys this week, 5 more than last week.',
    stats: [
      { value: '18', label: 'Deploys' },
      { value: '99.98%', label: 'Uptime' },
      { value: '4', label: 'New members' },
    ],
    activity: [
      { title: 'Priya merged “Checkout redesign”', url: 'https://app.acme.example.com/activity/a1', when: 'Friday' },
      { title: 'Build cache hit rate reached 91%', url: 'https://app.acme.example.com/activity/a2', when: 'Wednesday' },
      { title: 'Marco joined Design Systems', url: 'https://app.acme.example.com/activity/a3', when: 'Monday' },
    ],
    action_url: 'https://app.acme.example.com/dashboard',
    preferences_url: 'https://app.acme.example.com/settings/notifications',
  },
});

export const feedbackRequest = defineTemplate({
  id: 'gallery_feedback_request',
  name: 'Feedback request',
  category: 'engagement',
  description: 'Asks a customer to rate their experience on a 1–5 scale, one link per score.',
  subject: '{{ first_name }}, how was your experience with {{ product_name }}?',
  title: 'How did we do?',
  preheader: 'One click tells us how we did.',
  reason: 'You received this email because you recently used {{ product_name }}.',
  content: `
<h1>How did we do?</h1>
<p>Hi {{ first_name }}, you recently {{ context }}. How likely are you to recommend {{ product_name }} to a friend? Pick a score: it takes one click.</p>
<table role="presentation" cellpadding="0" cellspacing="0" border="0" style="margin: 0 0 16px 0;">
  <tr>
{{#ratings}}
    <td style="padding: 0 4px 0 0;">
      <a href="{{ url }}" title="{{ label }}" style="display: inline-block; width: 40px; padding: 10px 0; border: 1px solid #1d4ed8; border-radius: 6px; text-align: center; color: #1d4ed8; font-weight: 700; text-decoration: none;">{{ score }}</a>
    </td>
{{/ratings}}
  </tr>
</table>
<p class="muted">1 is not likely, 5 is very likely. Want to say more? <a href="{{ survey_url }}">Answer three short questions</a>.</p>`,
  variables: [req('first_name'), req('product_name'), opt('context', 'contacted our support team'), req('ratings'), req('survey_url')],
  samples: {
    first_name: 'Dana',
    product_name: 'Acme Cloud',
    context: 'contacted our support team',
    ratings: [1, 2, 3, 4, 5].map((score) => ({
      score: String(score),
      label: `${score} out of 5`,
      url: `https://acme.example.com/feedback?score=${score}&ticket=T-8812`,
    })),
    survey_url: 'https://acme.example.com/feedback/survey?ticket=T-8812',
  },
});

