import * as z from 'zod';
import type { ContractsOf } from '../../shared/http/contract';
import type { unsubscribe } from './definition';
import { unsubscribeParams, unsubscribeView } from '../../shared/sending/unsubscribe/schemas';
import { clickQuery, trackParams } from '../../shared/sending/tracking/schemas';

const PAGES =
  'Answered by content negotiation: when `Accept` ranks `text/html` above `application/json` (a browser) the answer is a small HTML page, `text/html; charset=utf-8` ' +
  '(or 400 "Link not valid" for an invalid token), served with `Cache-Control: no-store`, `Referrer-Policy: no-referrer` and a `default-src \'none\'` policy; ' +
  'otherwise (no `Accept`, `*/*`, `application/json`) it is the JSON documented here. A token that is malformed, changed in any character, or not one Postbox issued is 400 `invalid_token`. ' +
  'No API key: the token is the credential, and it can touch only the message it was issued for. Limited per client IP.';

/** RFC 8058's one-click body; any other body, or none, is accepted too. */
const oneClickBody = z.string().meta({ description: '`List-Unsubscribe=One-Click` (RFC 8058), form-encoded; any other body or none is accepted too' });

export const contracts: ContractsOf<typeof unsubscribe> = {
  'GET /v1/unsubscribe/{token}': {
    operationId: 'showUnsubscribe',
    description:
      'The unsubscribe link of a marketing message (its `List-Unsubscribe` header and the `{{ unsubscribe_url }}` of a marketing template). It changes nothing: mail scanners follow links. ' +
      'A browser gets a confirmation page whose button POSTs to the same address; the JSON says whether the recipient is unsubscribed now. ' +
      PAGES,
    params: unsubscribeParams,
    responses: { 200: { description: 'What the link would do (JSON; a browser gets the confirmation page)', schema: unsubscribeView } },
    errors: ['invalid_token'],
    examples: [
      { name: 'a link from a marketing message', params: { token: '{{unsubscribe_token}}' }, status: 200 },
      { name: 'a changed token', params: { token: '01jabcdefghjkmnpqrstvwxyz0.aaaaaaaaaaaaaaaaaaaaaaaaaa' }, status: 400 },
      { name: 'not a token', params: { token: 'not-a-token' }, status: 400 },
    ],
  },
  'POST /v1/unsubscribe/{token}': {
    operationId: 'unsubscribe',
    description:
      'One-click unsubscribe (RFC 8058): what a mail client posts for `List-Unsubscribe-Post: List-Unsubscribe=One-Click`, and what the confirmation page’s button posts. ' +
      'The recipient of the message is unsubscribed on its channel: the suppression entry becomes `unsubscribed` (reason `unsubscribed`; created if absent, whatever suppressed the address before), ' +
      'the account’s contact with that address is marked `unsubscribed: true`, and the message’s timeline gets one `unsubscribed` event (no webhook: it is not a subscribable type). ' +
      'Idempotent: a repeat changes nothing and answers 200 again. ' +
      PAGES,
    params: unsubscribeParams,
    body: oneClickBody,
    bodyContentType: 'application/x-www-form-urlencoded',
    responses: { 200: { description: 'Unsubscribed (JSON; a browser gets a page)', schema: unsubscribeView } },
    errors: ['invalid_token'],
    examples: [
      { name: 'one click', params: { token: '{{unsubscribe_token}}' }, body: 'List-Unsubscribe=One-Click', status: 200 },
      { name: 'a changed token', params: { token: '01jabcdefghjkmnpqrstvwxyz0.aaaaaaaaaaaaaaaaaaaaaaaaaa' }, body: 'List-Unsubscribe=One-Click', status: 400 },
    ],
  },
  'GET /v1/t/o/{token}': {
    operationId: 'trackOpen',
    description:
      'The open pixel of a tracked message, as the local runtime mails it (in AWS SES adds its own pixel through the tracked configuration set). Each fetch records an `opened` event ' +
      '(SES\'s Open notification shape: the client\'s IP and user agent) and fans out its webhooks; opens may repeat. Answers a 1×1 GIF with `Cache-Control: no-store`. ' +
      'No API key: the token is the credential. A token that is malformed, changed, not one Postbox issued, or of a message that does not track opens is 404 `not_found`.',
    params: trackParams,
    responses: { 200: { description: 'A transparent 1×1 GIF', contentType: 'image/gif' } },
    errors: [],
    examples: [{ name: 'not a token', params: { token: 'not-a-token' }, status: 404 }],
  },
  'GET /v1/t/c/{token}': {
    operationId: 'trackClick',
    description:
      'A tracked link of a message, as the local runtime mails it. Records a `clicked` event (SES\'s Click notification shape, with the link) and answers 302 to the link, ' +
      'which the token signs: a changed `url` is 404, so the address cannot redirect anywhere else. Clicks may repeat. Answered with `Cache-Control: no-store`. ' +
      'A token that is malformed, changed, not one Postbox issued, or of a message that does not track clicks is 404 `not_found`.',
    params: trackParams,
    query: clickQuery,
    responses: { 302: { description: '`Location` is the link as mailed' } },
    errors: [],
    examples: [{ name: 'not a token', params: { token: 'not-a-token' }, query: { url: 'https://example.com/' }, status: 404 }],
  },
};
