// The auth function (functions/manifest.ts lists every area's): routes with
// their access rules, triggers, least-privilege `needs`, memory and timeout. Data only, never handler code.
import { defineFunction } from '../../shared/platform';
import { PUBLIC } from '../access';

export const auth = defineFunction({
  // Sign-up, sign-in and the console's session (issue 19). Public routes, limited per client IP;
  // failed sign-ins and the mails are budgeted per address too (shared/auth/throttle.ts).
  name: 'auth',
  entry: 'functions/auth/http.ts',
  handler: 'handler',
  http: [
    { method: 'POST', path: '/v1/auth/signup', access: PUBLIC, summary: 'Sign up (signed in at once); mails a verification link' },
    { method: 'POST', path: '/v1/auth/verify-email', access: PUBLIC, summary: 'Verify the address with the mailed token' },
    { method: 'POST', path: '/v1/auth/login', access: PUBLIC, summary: 'Sign in with a password' },
    { method: 'POST', path: '/v1/auth/login-code', access: PUBLIC, summary: 'Mail a sign-in code, or sign in with it' },
    { method: 'POST', path: '/v1/auth/logout', access: PUBLIC, summary: 'Sign out' },
    { method: 'POST', path: '/v1/auth/password-reset', access: PUBLIC, summary: 'Mail a reset link, or set a new password' },
    { method: 'GET', path: '/v1/auth/session', access: PUBLIC, summary: 'Who is signed in, and the CSRF token' },
    { method: 'GET', path: '/v1/auth/oauth/{provider}/start', access: PUBLIC, summary: 'Sign in with GitHub or Google' },
    { method: 'GET', path: '/v1/auth/oauth/{provider}/callback', access: PUBLIC, summary: "The provider's redirect back" },
  ],
  // The OAuth apps' client secrets; the client ids are the function's environment (lib/app-stack.ts).
  needs: { table: 'readwrite', sesSend: true, links: true, secrets: ['oauth-github-client-secret', 'oauth-google-client-secret'] },
  memoryMb: 512,
  timeoutSeconds: 10,
});
