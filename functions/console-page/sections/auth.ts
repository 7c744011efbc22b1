// Signed out: sign in (password, a mailed code, GitHub or Google), sign up, forgot password, and the
// mailed links' views (#/verify-email/<token>, #/reset-password/<token>) that post their token.
import { field, view, type Section } from '../section';

/** The server's minimum (shared/auth/schemas.ts MIN_PASSWORD_LENGTH; the browser test holds them equal). */
const MIN = 10;

/** Links that work without the script; with it, a click first checks the provider is set up (web/console/sections/auth.ts). */
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

export const authSection: Section = { markup, signedOut: true };
