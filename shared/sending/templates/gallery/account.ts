import { button, defineTemplate, fallbackLink, opt, req } from './layout';

const SECURITY_REASON = 'You received this security email because of activity on your account.';

export const verifyEmail = defineTemplate({
  id: 'gallery_verify_email',
  name: 'Verify email',
  category: 'account',
  description: 'Asks a user to confirm their email address with a link and a code.',
  subject: 'Confirm your email address for {{ product_name }}',
  title: 'Confirm your email address',
  preheader: 'One click to confirm {{ email }}.',
  reason: 'You received this email because this address was used to sign up.',
  content: `
<h1>Confirm your email address</h1>
<p>Hi {{ first_name }}, please confirm that <strong>{{ email }}</strong> is your address so we can keep your {{ product_name }} account secure.</p>
${button('action_url', 'Confirm email address')}
<p>Or enter this code: <strong style="font-size: 20px; letter-spacing: 4px;">{{ code }}</strong></p>
<p class="muted">The link and code expire in {{ expires_in }}. If you did not sign up, ignore this email.</p>
${fallbackLink('action_url')}`,
  variables: [req('first_name'), req('email'), req('product_name'), req('action_url'), req('code'), opt('expires_in', '24 hours')],
  samples: {
    first_name: 'Dana',
    email: 'dana@example.com',
    product_name: 'Acme Cloud',
    action_url: 'https://app.acme.example.com/verify?token=c91b7e',
    code: '482913',
    expires_in: '24 hours',
  },
});

export const passwordReset = defineTemplate({
  id: 'gallery_password_reset',
  name: 'Password reset',
  category: 'account',
  description: 'Sends a time-limited link to choose a new password.',
  subject: 'Reset your {{ product_name }} password',
  title: 'Reset your password',
  preheader: 'Use this link within {{ expires_in }} to choose a new password.',
  reason: SECURITY_REASON,
  content: `
<h1>Reset your password</h1>
<p>Hi {{ first_name }}, we received a request to reset the password for your {{ product_name }} account.</p>
${button('action_url', 'Choose a new password')}
<p class="muted">This link expires in {{ expires_in }} and can be used once. If you did not ask for a reset, you can ignore this email: your password stays the same.</p>
${fallbackLink('action_url')}`,
  variables: [req('first_name'), req('product_name'), req('action_url'), opt('expires_in', '1 hour')],
  samples: {
    first_name: 'Dana',
    product_name: 'Acme Cloud',
    action_url: 'https://app.acme.example.com/reset?token=5d0a1f',
    expires_in: '1 hour',
  },
});

export const magicLink = defineTemplate({
  id: 'gallery_magic_link',
  name: 'Magic link',
  category: 'account',
  description: 'Signs a user in with a one-time link instead of a password.',
  subject: 'Your sign-in link for {{ product_name }}',
  title: 'Sign in to {{ product_name }}',
  preheader: 'Your one-time sign-in link, valid for {{ expires_in }}.',
  reason: SECURITY_REASON,
  content: `
<h1>Sign in to {{ product_name }}</h1>
<p>Click the button below to sign in as <strong>{{ email }}</strong>. No password needed.</p>
${button('action_url', 'Sign in')}
<p class="muted">This link expires in {{ expires_in }} and works once. The request came from {{ request_location }}. If it was not you, ignore this email.</p>
${fallbackLink('action_url')}`,
  variables: [req('product_name'), req('email'), req('action_url'), opt('expires_in', '15 minutes'), opt('request_location', 'an unknown location')],
  samples: {
    product_name: 'Acme Cloud',
    email: 'dana@example.com',
    action_url: 'https://app.acme.example.com/magic?token=a81c44',
    expires_in: '15 minutes',
    request_location: 'Lisbon, Portugal',
  },
});

export const accountAlert = defineTemplate({
  id: 'gallery_account_alert',
  name: 'Account alert',
  category: 'account',
  description: 'Tells a user that an important setting on their account changed.',
  subject: 'Your {{ product_name }} account: {{ alert_title }}',
  title: '{{ alert_title }}',
  preheader: '{{ alert_title }} on {{ occurred_at }}.',
  reason: SECURITY_REASON,
  content: `
<h1>{{ alert_title }}</h1>
<p>Hi {{ first_name }}, {{ alert_message }}</p>
<table role="presentation" class="details" width="100%" cellpadding="0" cellspacing="0" border="0" style="margin: 0 0 16px 0;">
  <tr><td class="label">When</td><td>{{ occurred_at }}</td></tr>
  <tr><td class="label">Changed by</td><td>{{ actor }}</td></tr>
</table>
<p class="notice">If you did not make this change, secure your account now.</p>
${button('action_url', 'Review account activity')}`,
  variables: [req('first_name'), req('product_name'), req('alert_title'), req('alert_message'), req('occurred_at'), req('actor'), req('action_url')],
  samples: {
    first_name: 'Dana',
    product_name: 'Acme Cloud',
    alert_title: 'Two-factor authentication was turned off',
    alert_message: 'two-factor authentication was turned off for your account.',
    occurred_at: 'March 4, 2025 at 09:12 UTC',
    actor: 'dana@example.com',
    action_url: 'https://app.acme.example.com/settings/security',
  },
});

export const loginAlert = defineTemplate({
  id: 'gallery_login_alert',
  name: 'Login alert',
  category: 'account',
  description: 'Reports a sign-in from a new device or location, with a way to lock the account.',
  subject: 'New sign-in to your {{ product_name }} account',
  title: 'New sign-in',
  preheader: 'A new sign-in from {{ location }} on {{ device }}.',
  reason: SECURITY_REASON,
  content: `
<h1>New sign-in to your account</h1>
<p>Hi {{ first_name }}, your {{ product_name }} account was just used to sign in from a device we have not seen before.</p>
<table role="presentation" class="details" width="100%" cellpadding="0" cellspacing="0" border="0" style="margin: 0 0 16px 0;">
  <tr><td class="label">Device</td><td>{{ device }}</td></tr>
  <tr><td class="label">Location</td><td>{{ location }}</td></tr>
  <tr><td class="label">IP address</td><td>{{ ip_address }}</td></tr>
  <tr><td class="label">Time</td><td>{{ occurred_at }}</td></tr>
</table>
<p>If this was you, there is nothing to do. If not, change your password and sign out of other sessions.</p>
${button('action_url', 'This was not me')}`,
  variables: [req('first_name'), req('product_name'), req('device'), req('location'), req('ip_address'), req('occurred_at'), req('action_url')],
  samples: {
    first_name: 'Dana',
    product_name: 'Acme Cloud',
    device: 'Firefox on Windows',
    location: 'Porto, Portugal',
    ip_address: '203.0.113.42',
    occurred_at: 'March 4, 2025 at 21:40 UTC',
    action_url: 'https://app.acme.example.com/settings/security/lock?token=77b2',
  },
});

export const goodbye = defineTemplate({
  id: 'gallery_goodbye',
  name: 'Goodbye',
  category: 'account',
  description: 'Confirms an account was closed, says what happens to the data and how to come back.',
  subject: 'Your {{ product_name }} account has been closed',
  title: 'Your account has been closed',
  preheader: 'Sorry to see you go, {{ first_name }}.',
  reason: 'You received this email to confirm your account was closed.',
  content: `
<h1>Sorry to see you go, {{ first_name }}</h1>
<p>Your {{ product_name }} account has been closed as of {{ closed_at }}. We will delete your data on {{ deletion_date }}; until then you can reactivate the account and pick up where you left off.</p>
${button('action_url', 'Reactivate my account')}
<p>If you have a minute, tell us <a href="{{ feedback_url }}">why you left</a>. It helps us improve.</p>`,
  variables: [req('first_name'), req('product_name'), req('closed_at'), req('deletion_date'), req('action_url'), req('feedback_url')],
  samples: {
    first_name: 'Dana',
    product_name: 'Acme Cloud',
    closed_at: 'March 4, 2025',
    deletion_date: 'April 3, 2025',
    action_url: 'https://app.acme.example.com/reactivate?token=0c5e',
    feedback_url: 'https://acme.example.com/survey/exit',
  },
});
