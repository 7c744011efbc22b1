// The web console (GET /; functions/console-page/page.ts inlines this bundle, built by
// `npm run web:build`): each section's views registered with the router, the shell wired (the
// menu, sign-out), and the first view shown once the session is known. No framework: the markup
// is the page's (functions/console-page/sections/), the script only fills it in.
import { api, onSessionEnded } from './api';
import { $ } from './dom';
import { refreshSession, route, signedOut, views } from './router';
import { accountViews } from './sections/accounts';
import { audienceViews } from './sections/audience';
import { authViews } from './sections/auth';
import { billingViews } from './sections/billing';
import { deadLetterViews } from './sections/dead-letters';
import { domainViews } from './sections/domains';
import { keyViews } from './sections/keys';
import { messageViews } from './sections/messages';
import { overviewViews } from './sections/overview';
import { suppressionViews } from './sections/suppressions';
import { templateViews } from './sections/templates';
import { usageViews } from './sections/usage';
import { webhookViews } from './sections/webhooks';
import { attempt } from './ui';

Object.assign(
  views,
  authViews,
  overviewViews,
  keyViews,
  domainViews,
  messageViews,
  suppressionViews,
  webhookViews,
  templateViews,
  audienceViews,
  usageViews,
  billingViews,
  accountViews,
  deadLetterViews,
);

onSessionEnded(() => signedOut('', true));

$('nav-toggle').addEventListener('click', () => {
  const open = $('nav-list').classList.toggle('open');
  $('nav-toggle').setAttribute('aria-expanded', String(open));
});
$('signout').addEventListener(
  'click',
  () =>
    void attempt(async () => {
      await api((c) => c.auth.logOut());
      signedOut('Signed out.');
    })(),
);
for (const view of Object.values(views)) view.wire?.();
window.addEventListener('hashchange', route);
void refreshSession().then(route);
