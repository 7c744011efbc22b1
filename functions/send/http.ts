import { functionNamed } from '../manifest';
import { send } from './definition';
import { ApiError } from '../../shared/errors';
import { authOf, createHttpHandler } from '../../shared/http/pipeline';
import { errorResult, json } from '../../shared/http/respond';
import type { HttpResult } from '../../shared/http/types';
import { parseInput } from '../../shared/http/validate';
import { MAX_BATCH, validateBody, type BatchItemResult, type SendErrorCode } from '../../shared/sending/messages/schemas';
import { acceptSends, suppressedError, type SendOutcome } from '../../shared/sending/messages/send';
import { validateAddress } from '../../shared/sending/messages/validate';

/** A single send: 201 with the SendResponse, or the error envelope. */
function sendAnswer(outcome: SendOutcome): HttpResult {
  switch (outcome.kind) {
    case 'accepted':
      return json(201, outcome.message);
    case 'suppressed':
      return errorResult(suppressedError(outcome.message));
    case 'rejected':
      return errorResult(outcome.error);
  }
}

/**
 * An item's error object. The send path throws only the codes of sendErrorCodes (the list the
 * document gives; the whole-request codes, such as unauthorized, fail the request instead).
 */
const itemError = (error: ApiError): Extract<BatchItemResult, { success: false }>['error'] => ({ ...error.toBody(), code: error.code as SendErrorCode });

/** One item of a batch answer (batchItemResult): what the single send would answer, as `response` or `error`. */
function batchItem(outcome: SendOutcome): BatchItemResult {
  switch (outcome.kind) {
    case 'accepted':
      return { success: true, response: outcome.message };
    case 'suppressed':
      return { success: false, error: itemError(suppressedError(outcome.message)) };
    case 'rejected':
      return { success: false, error: itemError(outcome.error) };
  }
}

export const handler = createHttpHandler(send, {
  'POST /v1/send': async (req, c) => {
    const [outcome] = await acceptSends(c, authOf(req), [req.body], { batch: false });
    if (!outcome) throw new Error('send produced no outcome');
    return sendAnswer(outcome);
  },
  'POST /v1/send/batch': async (req, c) => {
    if (!Array.isArray(req.body)) throw new ApiError('invalid_request', 'body: expected a JSON array of send requests');
    if (req.body.length === 0) throw new ApiError('invalid_request', 'body: a batch needs at least 1 item');
    if (req.body.length > MAX_BATCH) throw new ApiError('batch_too_large', `a batch holds at most ${MAX_BATCH} items; got ${req.body.length}`);
    const outcomes = await acceptSends(c, authOf(req), req.body, { batch: true });
    return json(200, outcomes.map(batchItem));
  },
  'POST /v1/validate': async (req, c) => json(200, await validateAddress(c, parseInput(validateBody, req.body).email)),
});
