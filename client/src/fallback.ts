// FALLBACK TYPES — REPLACE AT MERGE (issue 12).
//
// Narrow local types for the routes whose contracts had not landed when the client was written
// (every area but keys and docs). The wrapper uses one only while the generated schema.d.ts does
// not describe its route (types.ts: `Ok`, `Body`, `Query` pick the generated type first). Once every
// area's contract is in functions/contracts.ts: `npm run openapi && npm run client:types`, check
// `npx tsc --noEmit -p .`, then delete this file and the fallback arguments in index.ts.
// Written from shared/*/schemas.ts, the handlers and the interface specification; loose
// (`[key: string]: unknown`) where a shape was not settled.

/** FALLBACK: replaced by the generated type at merge. */
export type Channel = 'email' | 'sms' | 'push' | 'voice' | 'webhook';
type Loose = { [key: string]: unknown };

/** FALLBACK: replaced by the generated type at merge. */
export interface ErrorBody {
  code: string;
  message: string;
  status: number;
}

/** FALLBACK: replaced by the generated type at merge. */
export interface SendRequest {
  channel: Channel;
  idempotency_key: string;
  message_type?: 'transactional' | 'marketing';
  destination: Loose;
  payload?: Loose;
  template_id?: string;
  template_vars?: Loose;
  metadata?: Loose;
  validate_recipient?: boolean;
  scheduled_at?: string;
}

/** FALLBACK: replaced by the generated type at merge. */
export interface SendResponse {
  id: string;
  status: 'queued' | 'scheduled';
  channel: string;
  idempotency_key: string;
  created_at: string;
}

/** FALLBACK: replaced by the generated type at merge. */
export type BatchItemResult = { success: true; response: SendResponse } | { success: false; error: ErrorBody };

/** FALLBACK: replaced by the generated type at merge. */
export interface ValidateResult {
  email: string;
  valid: boolean;
  reason: string;
}

/** FALLBACK: replaced by the generated type at merge. */
export interface MessageSummary {
  id: string;
  channel: Channel;
  status: string;
  message_type: string;
  created_at: string;
}

/** FALLBACK: replaced by the generated type at merge. */
export interface TimelineEvent {
  id: string;
  type: string;
  message_id: string;
  source: string;
  payload: Loose;
  occurred_at: string;
  created_at: string;
  [key: string]: unknown;
}

/** FALLBACK: replaced by the generated type at merge. */
export interface Message extends MessageSummary {
  idempotency_key: string;
  provider_message_id: string;
  updated_at: string;
  test_mode: boolean;
  scheduled_at: string | null;
  events: TimelineEvent[];
}

/** FALLBACK: replaced by the generated type at merge. */
export interface PageQuery {
  limit?: string;
  cursor?: string;
}

/** FALLBACK: replaced by the generated type at merge. */
export interface MessagesQuery extends PageQuery {
  channel?: Channel;
  status?: string;
  from?: string;
  to?: string;
  idempotency_key?: string;
}

/** FALLBACK: replaced by the generated type at merge. */
export interface MessagesPage {
  messages: MessageSummary[];
  next_cursor: string | null;
}

/** FALLBACK: replaced by the generated type at merge. */
export interface CanceledMessage {
  id: string;
  status: 'canceled';
}

/** FALLBACK: replaced by the generated type at merge. */
export interface Suppression {
  channel: Channel;
  recipient: string;
  state: 'suppressed' | 'unsubscribed';
  reason: string;
  updated_at: string;
}

/** FALLBACK: replaced by the generated type at merge. */
export interface SuppressionsQuery extends PageQuery {
  channel?: Channel;
}

/** FALLBACK: replaced by the generated type at merge. */
export interface SuppressionsPage {
  suppressions: Suppression[];
  next_cursor: string | null;
}

/** FALLBACK: replaced by the generated type at merge. */
export interface CreateSuppression {
  channel: Channel;
  recipient: string;
  reason?: string;
}

/** FALLBACK: replaced by the generated type at merge. */
export interface RemoveSuppression {
  channel: Channel;
  recipient: string;
}

/** FALLBACK: replaced by the generated type at merge. */
export interface ImportSuppressions {
  channel?: Channel;
  entries: Array<{ email: string; reason?: string; state?: 'suppressed' | 'unsubscribed' }>;
}

/** FALLBACK: replaced by the generated type at merge. */
export interface ImportResult {
  imported: number;
  skipped: number;
}

/** FALLBACK: replaced by the generated type at merge. */
export interface DnsRecord {
  type: string;
  name: string;
  value: string;
  [key: string]: unknown;
}

/** FALLBACK: replaced by the generated type at merge. */
export interface Domain {
  id: string;
  domain: string;
  dkim_status: string;
  spf_status: string;
  dmarc_status: string;
  txt_status: string;
  dns_records: DnsRecord[];
  mail_from_domain: string;
  from_name: string | null;
  sandbox: boolean;
  created_at: string;
  updated_at: string;
}

/** FALLBACK: replaced by the generated type at merge. */
export interface DomainVerification {
  domain: string;
  fully_verified: boolean;
  results: Array<{ field: string; type: string; name: string; status: string; detail: string }>;
}

/** FALLBACK: replaced by the generated type at merge. */
export interface BimiState {
  logo_url: string;
  record: { type: 'TXT'; name: string; value: string } | null;
  dmarc: { at_enforcement: boolean; recommended: string };
  bimi_published: boolean;
  vmc_note: string;
}

/** FALLBACK: replaced by the generated type at merge. */
export interface TestRecipient {
  id: string;
  email: string;
  status: 'pending' | 'verified';
  created_at: string;
  verified_at: string | null;
}

/** FALLBACK: replaced by the generated type at merge. */
export interface TestRecipientsPage {
  test_recipients: TestRecipient[];
  next_cursor: string | null;
}

/** FALLBACK: replaced by the generated type at merge. */
export type WebhookEventType = 'sent' | 'delivered' | 'opened' | 'clicked' | 'delivery_delayed' | 'bounced' | 'complained' | 'failed' | 'email.received';

/** FALLBACK: replaced by the generated type at merge. */
export interface Webhook {
  id: string;
  account_id: string;
  endpoint_url: string;
  event_types: WebhookEventType[];
  is_active: boolean;
  created_at: string;
}

/** FALLBACK: replaced by the generated type at merge. */
export interface WebhookWithSecret extends Webhook {
  signing_secret: string;
}

/** FALLBACK: replaced by the generated type at merge. */
export interface WebhooksPage {
  webhooks: Webhook[];
  next_cursor: string | null;
}

/** FALLBACK: replaced by the generated type at merge. */
export interface CreateWebhook {
  endpoint_url: string;
  event_types?: WebhookEventType[];
}

/** FALLBACK: replaced by the generated type at merge. */
export interface UpdateWebhook {
  endpoint_url?: string;
  event_types?: WebhookEventType[];
  is_active?: boolean;
}

/** FALLBACK: replaced by the generated type at merge. */
export interface WebhookDelivery {
  id: string;
  subscription_id: string;
  event_id: string;
  event_type: WebhookEventType;
  status: 'pending' | 'succeeded' | 'failed' | 'exhausted';
  attempt_count: number;
  response_status: number;
  next_retry_at?: string;
  created_at: string;
}

/** FALLBACK: replaced by the generated type at merge. */
export interface DeliveriesPage {
  deliveries: WebhookDelivery[];
  next_cursor: string | null;
}

/** FALLBACK: replaced by the generated type at merge. */
export interface BulkSendRequest {
  from_email: string;
  name?: string;
  subject?: string;
  body_html?: string;
  body_text?: string;
  template_id?: string;
  message_type?: 'transactional' | 'marketing';
  audience_list_id?: string;
  recipients?: Array<{ email: string; data?: Loose }>;
  scheduled_at?: string;
  send_now?: boolean;
}

/** FALLBACK: replaced by the generated type at merge. */
export interface Broadcast {
  id: string;
  status: string;
  [key: string]: unknown;
}

/** FALLBACK: replaced by the generated type at merge. */
export interface BroadcastsPage {
  broadcasts: Broadcast[];
  next_cursor: string | null;
}

/** FALLBACK: replaced by the generated type at merge. */
export interface Usage {
  period: string;
  total_send_count: number;
  total_cost_micros: number;
  channels: Loose[];
}

/** FALLBACK: replaced by the generated type at merge. */
export interface AccountVerification {
  account_id: string;
  sandbox_mode: boolean;
  shared_email_sender: string;
  channels: Array<{ channel: Channel; status: string; verified: boolean }>;
}

/** FALLBACK: replaced by the generated type at merge. */
export interface CreateAccount {
  name?: string;
  email?: string;
}

/** FALLBACK: replaced by the generated type at merge. */
export interface CreatedAccount {
  account_id: string;
  admin_key: string;
  test_admin_key: string;
  staff_token: string;
}

/** FALLBACK: replaced by the generated type at merge (the DNS guide, the account status, a channel's state). */
export type LooseObject = Loose;
