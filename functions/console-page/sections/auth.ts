// Signed out: sign in (password, a mailed code, GitHub or Google), sign up, forgot password, and the
// mailed links' views (#/verify-email/<token>, #/reset-password/<token>) that post their token.
import { field, view, type Section } from '../section';

/** The server's minimum (shared/auth/schemas.ts MIN_PASSWORD_LENGTH; the browser test holds them equal). */
const MIN = 10;

/** Links that work without the script; with it, a click first checks the provider is set up (the script below). */
const oauth = `<p class="oauth">Or continue with <a class="button" href="/v1/auth/oauth/github/start" data-oauth="GitHub">GitHub</a> <a class="button" href="/v1/auth/oauth/google/start" data-oauth="Google">Google</a></p>`;

const markup = [
  view(
    'signin',
    'Sign in',
    `<form id="signin-form">${field('signin-email', 'Email', '<input id="signin-email" name="email" type="email" autocomplete="username" required>')}
${field('signin-password', 'Password', '<input id="signin-password" name="password" type="password" autocomplete="current-password" required>')}
<button type="submit">Sign in</button></form>${oauth}
<p><a href="#/code">Sign in with a code by email</a> · <a href="#/forgot">Forgot your password?</a> · <a href="#/signup">Create an account</a></p>`,
  ),
  view(
    'signup',
    'Create an account',
    `<form id="signup-form">${field('signup-name', 'Name (optional)', '<input id="signup-name" name="name" autocomplete="name">')}
${field('signup-email', 'Email', '<input id="signup-email" name="email" type="email" autocomplete="username" required>')}
${field('signup-password', `Password (at least ${MIN} characters)`, `<input id="signup-password" name="password" type="password" autocomplete="new-password" minlength="${MIN}" required>`)}
<button type="submit">Create account</button></form>${oauth}
<p>Already have an account? <a href="#/signin">Sign in</a></p>`,
  ),
  view(
    'code',
    'Sign in with a code',
    `<form id="code-request-form">${field('code-email', 'Email', '<input id="code-email" name="email" type="email" autocomplete="username" required>')}
<button type="submit">Email me a code</button></form>
<form id="code-form" hidden>${field('code-value', 'Code from the email', '<input id="code-value" name="code" autocomplete="one-time-code" inputmode="numeric" required>')}
<button type="submit">Sign in</button></form><p><a href="#/signin">Back to sign in</a></p>`,
  ),
  view(
    'forgot',
    'Reset your password',
    `<form id="forgot-form">${field('forgot-email', 'Email', '<input id="forgot-email" name="email" type="email" autocomplete="username" required>')}
<button type="submit">Email me a reset link</button></form><p><a href="#/signin">Back to sign in</a></p>`,
  ),
  view(
    'reset-password',
    'Choose a new password',
    `<form id="reset-form">${field('reset-password-new', `New password (at least ${MIN} characters)`, `<input id="reset-password-new" name="password" type="password" autocomplete="new-password" minlength="${MIN}" required>`)}
<button type="submit">Set password</button></form>`,
  ),
  view('verify-email', 'Verify your email', `<p id="verify-result">Checking your link…</p><p><a href="#/">Continue</a></p>`),
].join('\n');

const script = String.raw`
let resetToken = '';
let codeEmail = '';
/** Signed in: the answer's session view when it carries one (login), else GET /v1/auth/session (sign-up). */
async function enter(message, view) {
  if (view && view.csrf_token) signedIn(view);
  else if (!(await refreshSession())) return;
  say(message);
  go('overview');
}
/** Why the OAuth callback sent the person back here (its '?error=' reason), in a sentence. */
const OAUTH_REFUSALS = {
  oauth_denied: 'Sign-in was cancelled at the provider, and nothing was shared. Try again, or sign in another way.',
  oauth_failed: 'Sign-in with the provider did not complete. Try again, or sign in another way.',
  oauth_email_unverified: 'The provider has no verified email address for you. Verify your address there, or sign in another way.',
  account_suspended: 'This account is suspended. Contact support to have it lifted.',
};
/**
 * A GitHub or Google link: the start route redirects when the provider is set up and answers
 * 503 oauth_not_configured when not, so the click asks first without following the redirect (an
 * opaque redirect means set up) and only then leaves the page. The asking start's state is never
 * used and expires unredeemed.
 */
async function startOAuth(link) {
  const provider = link.dataset.oauth;
  const res = await fetch(link.getAttribute('href'), { redirect: 'manual', cache: 'no-store', credentials: 'same-origin', referrerPolicy: 'no-referrer' });
  if (res.type === 'opaqueredirect') return void location.assign(link.getAttribute('href'));
  if (res.status === 503) {
    const data = await res.json().catch(() => null);
    if (data && data.error && data.error.code === 'oauth_not_configured') return void say('Sign-in with ' + provider + ' is not set up on this deployment.', true);
  }
  say('Sign-in with ' + provider + ' is not available right now (HTTP ' + res.status + '). Try again in a moment.', true);
}
views.signin = {
  load(_, params) {
    const reason = params.get('error');
    if (reason) say(Object.hasOwn(OAUTH_REFUSALS, reason) ? OAUTH_REFUSALS[reason] : 'Sign-in did not complete. Try again, or sign in another way.', true);
  },
  wire() {
    for (const link of document.querySelectorAll('a[data-oauth]')) {
      link.addEventListener('click', (event) => {
        event.preventDefault();
        void attempt(startOAuth)(link);
      });
    }
    onSubmit($('signin-form'), async (f, form) => {
      const view = await api('POST', '/v1/auth/login', { email: f.email, password: f.password });
      form.reset();
      await enter('Signed in.', view);
    });
  },
};
views.signup = {
  wire() {
    onSubmit($('signup-form'), async (f, form) => {
      await api('POST', '/v1/auth/signup', { email: f.email, password: f.password, ...(f.name ? { name: f.name } : {}) });
      form.reset();
      await enter('Account created. We emailed you a link to verify your address.');
    });
  },
};
views.code = {
  load() {
    $('code-form').hidden = true;
    $('code-request-form').hidden = false;
  },
  wire() {
    onSubmit($('code-request-form'), async (f) => {
      await api('POST', '/v1/auth/login-code', { email: f.email });
      codeEmail = f.email;
      $('code-request-form').hidden = true;
      $('code-form').hidden = false;
      $('code-value').focus();
      say('If the address has an account, a code is on its way.');
    });
    onSubmit($('code-form'), async (f, form) => {
      const view = await api('POST', '/v1/auth/login-code', { email: codeEmail, code: f.code });
      form.reset();
      await enter('Signed in.', view);
    });
  },
};
views.forgot = {
  wire() {
    onSubmit($('forgot-form'), async (f, form) => {
      await api('POST', '/v1/auth/password-reset', { email: f.email });
      form.reset();
      say('If the address has an account, a reset link is on its way.');
    });
  },
};
views['reset-password'] = {
  load(token) {
    resetToken = token || '';
    // The token leaves the address bar (and the history) once read.
    history.replaceState(null, '', '#/reset-password');
  },
  wire() {
    onSubmit($('reset-form'), async (f, form) => {
      if (!resetToken) throw new ApiFailure('This page needs the link from the email.', 400, 'invalid_token');
      await api('POST', '/v1/auth/password-reset', { token: resetToken, password: f.password });
      resetToken = '';
      form.reset();
      // The reset ended every session of the person, this browser's too if it was theirs.
      if (state.session && (await refreshSession())) return void say('Password changed.');
      signedOut('Password changed. Sign in with it.');
    });
  },
};
views['verify-email'] = {
  async load(token) {
    history.replaceState(null, '', '#/verify-email');
    const result = $('verify-result');
    if (!token) return void (result.textContent = 'This page needs the link from the email.');
    try {
      await api('POST', '/v1/auth/verify-email', { token });
      result.textContent = 'Your address is verified.';
      if (state.session) await refreshSession();
    } catch (error) {
      result.textContent = error.code === 'invalid_token' ? 'This link is used, expired or unknown.' : describeFailure(error);
    }
  },
};
`;

export const authSection: Section = { markup, script, signedOut: true };
