import { button, defineTemplate, fallbackLink, opt, req } from './layout';

export const welcome = defineTemplate({
  id: 'gallery_welcome',
  name: 'Welcome',
  category: 'onboarding',
  description: 'Greets a new user after sign-up and points to the first step.',
  subject: 'Welcome to {{ product_name }}, {{ first_name }}',
  title: 'Welcome to {{ product_name }}',
  preheader: 'Your account is ready. Here is how to get started.',
  reason: 'You received this email because you created an account.',
  content: `
<h1>Welcome, {{ first_name }}!</h1>
<p>Thanks for joining {{ product_name }}. Your account is ready, and the next step takes about two minutes.</p>
<ul style="margin: 0 0 16px 0; padding-left: 20px;">
{{#steps}}
  <li style="margin: 0 0 8px 0;">{{ text }}</li>
{{/steps}}
</ul>
${button('action_url', '{{ action_label }}')}
<p class="muted">Questions? Reply to this email or write to <a href="mailto:{{ support_email }}">{{ support_email }}</a>.</p>`,
  variables: [req('first_name'), req('product_name'), req('action_url'), opt('action_label', 'Get started'), req('steps'), req('support_email')],
  samples: {
    first_name: 'Dana',
    product_name: 'Acme Cloud',
    action_url: 'https://app.acme.example.com/onboarding',
    action_label: 'Get started',
    steps: [{ text: 'Create your first project.' }, { text: 'Invite your team.' }, { text: 'Connect your domain.' }],
    support_email: 'support@acme.example.com',
  },
});

export const teamInvite = defineTemplate({
  id: 'gallery_team_invite',
  name: 'Team invite',
  category: 'onboarding',
  description: 'Invites someone to join a team or workspace on behalf of a colleague.',
  subject: '{{ inviter_name }} invited you to {{ team_name }} on {{ product_name }}',
  title: 'Join {{ team_name }}',
  preheader: '{{ inviter_name }} wants you on {{ team_name }}.',
  reason: 'You received this email because {{ inviter_name }} entered your address.',
  content: `
<h1>Join {{ team_name }}</h1>
<p>{{ inviter_name }} ({{ inviter_email }}) has invited you to collaborate on <strong>{{ team_name }}</strong> in {{ product_name }} as {{ role }}.</p>
${button('action_url', 'Accept the invitation')}
<p class="muted">This invitation expires in {{ expires_in }}. If you did not expect it, you can ignore this email.</p>
${fallbackLink('action_url')}`,
  variables: [req('inviter_name'), req('inviter_email'), req('team_name'), req('product_name'), opt('role', 'a member'), req('action_url'), opt('expires_in', '7 days')],
  samples: {
    inviter_name: 'Priya Shah',
    inviter_email: 'priya@acme.example.com',
    team_name: 'Design Systems',
    product_name: 'Acme Cloud',
    role: 'an editor',
    action_url: 'https://app.acme.example.com/invites/inv_29fk',
    expires_in: '7 days',
  },
});
