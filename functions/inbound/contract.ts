import * as z from 'zod';
import { listOf, pageQuery, type ContractsOf } from '../../shared/http/contract';
import type { inbound } from './definition';
import { inboundEmailSummary, inboundEmailView } from '../../shared/inbound-mail/receipt/schemas';

const inboundId = z.object({ id: z.string().meta({ description: 'The inbound email id, inb_…' }) });
const attachmentParams = inboundId.extend({ index: z.string().meta({ description: '0-based index in the email’s attachments array' }) });

const LINKED = {
  description: 'A file larger than 4 MiB: `Location` is a link to its bytes (S3 presigned; locally the runtime’s own), valid 5 minutes, sent with the same Content-Type and Content-Disposition; answered with Cache-Control: no-store',
};

const GATED = 'Answers 404 `not_found` on a deployment where inbound email is not enabled.';

export const contracts: ContractsOf<typeof inbound> = {
  'GET /v1/inbound': {
    operationId: 'listInboundEmails',
    description: `Mail received on the account's inbound-enabled domains, newest first, without the bodies. ${GATED}`,
    query: pageQuery,
    paginated: true,
    responses: { 200: { description: 'Received emails, newest first', schema: listOf('emails', inboundEmailSummary) } },
    errors: ['not_found'],
    examples: [
      { name: 'first page', status: 200 },
      { name: 'a cursor from elsewhere', query: { cursor: 'not-a-cursor' }, status: 400 },
    ],
  },
  'GET /v1/inbound/{id}': {
    operationId: 'getInboundEmail',
    description: `The full form: the list form plus text, html (as received: render it only sandboxed), headers and rfc_message_id. ${GATED}`,
    params: inboundId,
    responses: { 200: { description: 'The received email', schema: inboundEmailView } },
    errors: ['not_found'],
    examples: [{ name: 'no such email', params: { id: 'inb_missing' }, status: 404 }],
  },
  'GET /v1/inbound/{id}/raw': {
    operationId: 'getInboundEmailRaw',
    description: `The message exactly as it was received. 404 \`not_found\` when the raw message was not kept. ${GATED}`,
    params: inboundId,
    responses: { 200: { description: 'The RFC 822 message', contentType: 'message/rfc822' }, 302: LINKED },
    errors: ['not_found'],
    examples: [{ name: 'no such email', params: { id: 'inb_missing' }, status: 404 }],
  },
  'GET /v1/inbound/{id}/attachments/{index}': {
    operationId: 'getInboundAttachment',
    description: [
      "One attachment's bytes, with its Content-Type and `Content-Disposition: attachment` naming its file",
      `(an ASCII fallback and RFC 6266 \`filename*=UTF-8''…\`). 404 \`not_found\` for an index outside the attachments array. ${GATED}`,
    ].join(' '),
    params: attachmentParams,
    responses: { 200: { description: 'The attachment', contentType: 'application/octet-stream' }, 302: LINKED },
    errors: ['not_found'],
    examples: [
      { name: 'no such email', params: { id: 'inb_missing', index: '0' }, status: 404 },
      { name: 'not an index', params: { id: 'inb_missing', index: '-1' }, status: 404 },
    ],
  },
};
