// The Mail app's sending: compose, reply and forward, through the send pipeline. A function of
// its own so the reading function (functions/mail/http.ts) carries neither the send pipeline nor
// the send queue's grant. Their contracts sit with the other Mail routes' (functions/mail/contract.ts).
// Deployment-gated like every Mail route: 404 where inbound email is off.
import { inboundOnly } from '../../shared/http/inbound-gate';
import { authOf, createHttpHandler } from '../../shared/http/pipeline';
import { json } from '../../shared/http/respond';
import { parseInput } from '../../shared/http/validate';
import { composeMail, forwardThread, replyToThread } from '../../shared/inbound-mail/mailbox/compose';
import { composeBody, forwardBody, replyBody } from '../../shared/inbound-mail/mailbox/compose-schemas';
import { functionNamed } from '../manifest';
import { mailSend } from './definition';

export const handler = createHttpHandler(mailSend, inboundOnly({
  'POST /v1/mail/compose': async (req, c) => json(201, await composeMail(c, authOf(req), parseInput(composeBody, req.body))),
  'POST /v1/mail/threads/{id}/reply': async (req, c) => json(201, await replyToThread(c, authOf(req), req.params.id ?? '', parseInput(replyBody, req.body))),
  'POST /v1/mail/threads/{id}/forward': async (req, c) => json(201, await forwardThread(c, authOf(req), req.params.id ?? '', parseInput(forwardBody, req.body))),
}));
