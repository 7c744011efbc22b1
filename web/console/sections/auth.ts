// Signed out: sign in (password, a mailed code, GitHub or Google), sign up, forgot password, and the
// mailed links' views (#/verify-email/<token>, #/reset-password/<token>) that post their token.
import { authApi, describeFailure, failure, PostboxError } from '../api';
import { $, say } from '../dom';
import { go, refreshSession, signedIn, signedOut, type View } from '../router';
import { type Session, state } from '../state';
import { attempt, onSubmit } from '../ui';

let resetToken = '';
let codeEmail = '';

/** Signed in: the answer's session view when it carries one (login), else GET /v1/auth/session (sign-up). */
async function enter(message: string, view?: { csrf_token?: string }): Promise<void> {
  if (view?.csrf_token) signedIn(view as Session);
  else if (!(await refreshSession())) return;
  say(message);
  go('overview');
}

/** Why the OAuth callback sent the person back here (its '?error=' reason), in a sentence. */
const OAUTH_REFUSALS: Record<string, string> = {
  oauth_denied: 'Sign-in was cancelled at the provider, and nothing was shared. Try again, or sign in another way.',
  oauth_failed: 'Sign-in with the provider did not complete. Try again, or sign in another way.',
  oauth_email_unverified: 'The provider has no verified email address for you. Verify your address there, or sign in another way.',
  account_suspended: 'This account is suspended. Contact support to have it lifted.',
};

/**
 * A GitHub or Google link: the start route redirects when the provider is set up and answers
 * 503 oauth_not_configured when not, so the click asks first without following the redirect (an
 * opaque redirect means set up) and only then leaves the page. The asking start's state is never
 * used and expires unredeemed. (A redirect is no API answer: this one is a fetch of its own.)
 */
async function startOAuth(link: HTMLAnchorElement): Promise<void> {
  const provider = link.dataset.oauth ?? '';
  const href = link.getAttribute('href') ?? '';
  const res = await fetch(href, { redirect: 'manual', cache: 'no-store', credentials: 'same-origin', referrerPolicy: 'no-referrer' });
  if (res.type === 'opaqueredirect') return void location.assign(href);
  if (res.status === 503) {
    const data = (await res.json().catch(() => null)) as { error?: { code?: string } } | null;
    if (data?.error?.code === 'oauth_not_configured') return void say(`Sign-in with ${provider} is not set up on this deployment.`, true);
  }
  say(`Sign-in with ${provider} is not available right now (HTTP ${res.status}). Try again in a moment.`, true);
}

const signin: View = {
  load(_, params) {
    const reason = params.get('error');
    if (reason) say((Object.hasOwn(OAUTH_REFUSALS, reason) && OAUTH_REFUSALS[reason]) || 'Sign-in did not complete. Try again, or sign in another way.', true);
  },
  wire() {
    for (const link of document.querySelectorAll<HTMLAnchorElement>('a[data-oauth]')) {
      link.addEventListener('click', (event) => {
        event.preventDefault();
        void attempt(startOAuth)(link);
      });
    }
    onSubmit<'email' | 'password'>($('signin-form'), async (f, form) => {
      const view = await authApi((c) => c.auth.logIn({ email: f.email, password: f.password }));
      form.reset();
      await enter('Signed in.', view);
    });
  },
};

const signup: View = {
  wire() {
    onSubmit<'email' | 'password' | 'name'>($('signup-form'), async (f, form) => {
      await authApi((c) => c.auth.signUp({ email: f.email, password: f.password, ...(f.name ? { name: f.name } : {}) }));
      form.reset();
      await enter('Account created. We emailed you a link to verify your address.');
    });
  },
};

const code: View = {
  load() {
    $('code-form').hidden = true;
    $('code-request-form').hidden = false;
  },
  wire() {
    onSubmit<'email'>($('code-request-form'), async (f) => {
      await authApi((c) => c.auth.logInWithCode({ email: f.email }));
      codeEmail = f.email;
      $('code-request-form').hidden = true;
      $('code-form').hidden = false;
      $('code-value').focus();
      say('If the address has an account, a code is on its way.');
    });
    onSubmit<'code'>($('code-form'), async (f, form) => {
      const view = await authApi((c) => c.auth.logInWithCode({ email: codeEmail, code: f.code }));
      form.reset();
      await enter('Signed in.', view);
    });
  },
};

const forgot: View = {
  wire() {
    onSubmit<'email'>($('forgot-form'), async (f, form) => {
      await authApi((c) => c.auth.resetPassword({ email: f.email }));
      form.reset();
      say('If the address has an account, a reset link is on its way.');
    });
  },
};

const resetPassword: View = {
  load(token) {
    resetToken = token ?? '';
    // The token leaves the address bar (and the history) once read.
    history.replaceState(null, '', '#/reset-password');
  },
  wire() {
    onSubmit<'password'>($('reset-form'), async (f, form) => {
      if (!resetToken) throw failure('This page needs the link from the email.', 'invalid_token');
      await authApi((c) => c.auth.resetPassword({ token: resetToken, password: f.password }));
      resetToken = '';
      form.reset();
      // The reset ended every session of the person, this browser's too if it was theirs.
      if (state.session && (await refreshSession())) return void say('Password changed.');
      signedOut('Password changed. Sign in with it.');
    });
  },
};

const verifyEmail: View = {
  async load(token) {
    history.replaceState(null, '', '#/verify-email');
    const result = $('verify-result');
    if (!token) return void (result.textContent = 'This page needs the link from the email.');
    try {
      await authApi((c) => c.auth.verifyEmail({ token }));
      result.textContent = 'Your address is verified.';
      if (state.session) await refreshSession();
    } catch (error) {
      result.textContent = error instanceof PostboxError && error.code === 'invalid_token' ? 'This link is used, expired or unknown.' : describeFailure(error);
    }
  },
};

export const authViews: Record<string, View> = { signin, signup, code, forgot, 'reset-password': resetPassword, 'verify-email': verifyEmail };
