// Plans and billing through Stripe: the plan in force, checkout, the customer portal (admin keys),
// and Stripe's signed event notifications (public; the signature over the raw body is the credential).
import { functionNamed } from '../manifest';
import { billing } from './definition';
import { receiveStripeEvent } from '../../shared/billing/events';
import { checkoutBody } from '../../shared/billing/schemas';
import { checkout, getBilling, openPortal } from '../../shared/billing/service';
import { authOf, createHttpHandler } from '../../shared/http/pipeline';
import { json } from '../../shared/http/respond';
import type { HttpRequest } from '../../shared/http/types';
import { parseInput } from '../../shared/http/validate';

/** Checkout and portal URLs open the account's billing: never cached. */
const NO_STORE = { 'cache-control': 'no-store' };
const accountOf = (req: HttpRequest) => ({ id: authOf(req).accountId, email: authOf(req).account.email });

export const handler = createHttpHandler(billing, {
  'GET /v1/billing': async (req, c) => json(200, await getBilling(c, authOf(req).accountId)),
  'POST /v1/billing/checkout': async (req, c) => json(200, await checkout(c, accountOf(req), parseInput(checkoutBody, req.body), req.baseUrl), NO_STORE),
  'POST /v1/billing/portal': async (req, c) => json(200, await openPortal(c, accountOf(req), req.baseUrl), NO_STORE),
  // Any verified event is acknowledged (200), applied or not, so Stripe stops redelivering it.
  'POST /v1/billing/webhook': async (req, c) => {
    await receiveStripeEvent(c, req.rawBody, req.headers['stripe-signature']);
    return json(200, { received: true });
  },
});
