// A send request checked and resolved before anything is stored: parsed, its channel enabled, its
// recipient, sender and content (inline or a template rendered), its schedule, the recipient check
// when asked, an internal caller's extras, and the digest its idempotency key stands for.
import { domainOf, isValidAddress, normalizeAddress, parseMailbox } from '../../formats/address';
import { ApiError, RetryableError } from '../../errors';
import type { Dns } from '../../ports/dns';
import type { HttpClient } from '../../ports/http-client';
import type { Logger } from '../../ports/logger';
import { templateNotFound, type TemplateRenderer } from '../templates/render';
import { ownAddressCounted, type SandboxQuota } from '../test-recipients/sandbox';
import { decideTracking, type TrackingChoice } from '../tracking/choice';
import { UNSUBSCRIBE_PLACEHOLDER, UNSUBSCRIBE_VARIABLE } from '../unsubscribe/variable';
import { checkMessageSize } from './content';
import { checkExtras, type MessageExtras } from './extras';
import { bodyDigest } from './idempotency';
import { sendRequest, type SendRequest } from './schemas';
import { checkSandboxRecipient, resolveSender, type SenderContext } from './sender';

export const SCHEDULE_PAST_MS = 60_000;
export const SCHEDULE_FUTURE_MS = 90 * 24 * 3600_000;

export interface Prepared {
  index: number;
  request: SendRequest;
  digest: string;
  recipient: string;
  from: string;
  subject: string;
  html?: string;
  text?: string;
  scheduledAt?: Date;
  /** The webhook channel's payload.data. */
  data?: unknown;
  /** A sandbox send to a verified test recipient or the account's own address: counts toward that daily limit. */
  quota?: SandboxQuota;
  /** The template and version the content was rendered from. */
  template_id?: string;
  template_version?: number;
  /** An internal caller's headers and attachments (./extras.ts). */
  headers?: MessageExtras['headers'];
  attachments?: MessageExtras['attachments'];
  /** What is tracked, decided now (shared/sending/tracking/choice.ts). */
  tracking?: TrackingChoice;
}

/** What preparing a send reads beyond the request: the address checks and the logger. */
export type PrepareDeps = { dns: Dns; http: HttpClient; logger: Logger; config: { validationEnabled: boolean } };

function fieldError(index: number | undefined, issue: { path: PropertyKey[]; message: string }): ApiError {
  const field = ['body', ...(index === undefined ? [] : [String(index)]), ...issue.path.map(String)].join('.');
  return new ApiError('invalid_request', `${field}: ${issue.message}`);
}

const text = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() !== '' ? value : undefined);

type Content = { subject: string; html?: string; text?: string; template_id?: string; template_version?: number };

/**
 * The email's content: the inline payload, or with `template_id` the account's template rendered
 * with `template_vars` instead (shared/sending/templates/render.ts: Mustache only, nothing heavier on this
 * path). The spec makes payload a required field, so one sent beside template_id is not an error;
 * the template replaces its subject and bodies.
 */
async function resolveContent(render: TemplateRenderer, request: SendRequest): Promise<Content> {
  const payload = request.payload ?? {};
  if (request.template_id !== undefined) {
    // A marketing template's {{ unsubscribe_url }} is its message's own link, over any value sent
    // for it: a placeholder here, the link once the send worker mails it (shared/sending/unsubscribe/variable.ts).
    const vars = request.message_type === 'marketing' ? { ...request.template_vars, [UNSUBSCRIBE_VARIABLE]: UNSUBSCRIBE_PLACEHOLDER } : (request.template_vars ?? {});
    const rendered = await render(request.template_id, vars);
    return {
      subject: rendered.subject,
      html: text(rendered.body_html),
      text: text(rendered.body_text),
      template_id: rendered.template_id,
      template_version: rendered.template_version,
    };
  }
  const subject = text(payload.subject);
  const html = text(payload.body_html);
  const plain = text(payload.body_text);
  if (!subject || (!html && !plain)) {
    throw new ApiError('invalid_channel_payload', 'email needs payload.subject and payload.body_html or payload.body_text');
  }
  return { subject, html, text: plain };
}

/** The channels this deployment can send; the others answer channel_not_enabled. */
const SENDABLE = new Set(['email', 'webhook']);

type Target = Pick<Prepared, 'recipient' | 'from' | 'subject' | 'html' | 'text' | 'data' | 'quota' | 'template_id' | 'template_version' | 'tracking'>;

async function prepareEmail(render: TemplateRenderer, ctx: SenderContext, request: SendRequest, testMode: boolean): Promise<Target> {
  const email = request.destination.email;
  const recipient = typeof email === 'string' ? normalizeAddress(email) : '';
  if (!isValidAddress(recipient)) throw new ApiError('invalid_destination', 'email needs destination.email holding a valid address');
  const content = await resolveContent(render, request);
  const from = resolveSender(ctx, request.metadata?.from_email);
  const sandbox = await checkSandboxRecipient(ctx, recipient, testMode);
  const quota: SandboxQuota | undefined =
    sandbox === 'test_recipient' || (sandbox === 'account_address' && ownAddressCounted(ctx.account)) ? sandbox : undefined;
  // The sending domain's switches; the shared sender's domain has none.
  const domain = ctx.domains.get(domainOf(parseMailbox(from)?.address ?? ''));
  const tracking = decideTracking({ messageType: request.message_type ?? 'transactional', bulk: ctx.bulk, testMode, requested: request.tracking, domain });
  return { recipient, from, ...content, ...(quota ? { quota } : {}), ...(tracking ? { tracking } : {}) };
}

/** The webhook channel posts payload.data to destination.url, through the same guard as webhooks. */
async function prepareWebhook(deps: PrepareDeps, request: SendRequest): Promise<Target> {
  const url = request.destination.url;
  if (typeof url !== 'string' || url.length > 2048) throw new ApiError('invalid_destination', 'webhook needs destination.url holding an https URL');
  const checked = await deps.http.check(url);
  if (!checked.ok) throw new ApiError('invalid_destination', `destination.url: ${checked.reason}`);
  // Templates render email; no webhook template exists.
  if (request.template_id !== undefined) throw templateNotFound(request.template_id);
  const data = request.payload?.data;
  if (data === undefined) throw new ApiError('invalid_channel_payload', 'webhook needs payload.data');
  return { recipient: checked.url, from: '', subject: '', data };
}

export async function prepare(
  deps: PrepareDeps,
  ctx: SenderContext,
  render: TemplateRenderer,
  testMode: boolean,
  raw: unknown,
  index: number | undefined,
  now: Date,
  extras?: MessageExtras,
): Promise<Prepared> {
  const { account } = ctx;
  const parsed = sendRequest.safeParse(raw);
  if (!parsed.success) throw fieldError(index, parsed.error.issues[0] ?? { path: [], message: 'invalid request' });
  const request = parsed.data;
  checkMessageSize(request);
  if (!account.enabled_channels.includes(request.channel) || !SENDABLE.has(request.channel)) {
    throw new ApiError('channel_not_enabled', `channel ${request.channel} is not enabled for this account`);
  }
  const target = request.channel === 'webhook' ? await prepareWebhook(deps, request) : await prepareEmail(render, ctx, request, testMode);
  let scheduledAt: Date | undefined;
  if (request.scheduled_at !== undefined) {
    scheduledAt = new Date(request.scheduled_at);
    const offset = scheduledAt.getTime() - now.getTime();
    if (offset < -SCHEDULE_PAST_MS || offset > SCHEDULE_FUTURE_MS) {
      throw new ApiError('invalid_schedule', 'scheduled_at must be no more than 1 minute in the past and no more than 90 days ahead');
    }
  }
  const recipient = target.recipient;
  if (request.validate_recipient && request.channel === 'email') {
    if (!deps.config.validationEnabled) throw new ApiError('validation_not_configured', 'recipient validation is not enabled in this deployment');
    try {
      if (!(await deps.dns.acceptsMail(domainOf(recipient)))) {
        throw new ApiError('recipient_undeliverable', `${domainOf(recipient)} publishes no MX, A or AAAA record`);
      }
    } catch (error) {
      if (!(error instanceof RetryableError)) throw error;
      // No answer is not a "no": the send goes ahead rather than failing on a flaky resolver.
      deps.logger.warn('recipient check got no DNS answer; sending anyway', { domain: domainOf(recipient), error });
    }
  }
  // Extras are part of what the idempotency key stands for: the same key with other extras is a reuse.
  const checked = extras === undefined ? undefined : checkExtras(extras, request.channel, target);
  const digest = bodyDigest(checked?.headers || checked?.attachments ? { request: raw, extras: checked } : raw);
  return { index: index ?? 0, request, digest, ...target, ...checked, scheduledAt };
}
