// The only place that knows key formats: each entity's partition and sort key, its index entries,
// and the queries that read them. The table itself (attribute and index names) is ./schema.ts.
import { encodeTime } from 'ulid';
import { table, type AccountListKey, type IndexKey, type MessageListKey, type OutboxKey } from './schema';

export const OUTBOX_SHARDS = 16;
const outboxShard = (keyDigest: string): number => Number.parseInt(keyDigest.slice(0, 2), 16) % OUTBOX_SHARDS;

export interface ItemKey {
  pk: string;
  sk: string;
}

const ACCOUNT = 'ACCT#';

export const keys = {
  account: (accountId: string): ItemKey => ({ pk: `${ACCOUNT}${accountId}`, sk: 'ACCOUNT' }),
  /**
   * The staff's account lists are index entries of the account item itself, so they are written
   * with it and a status change moves its by-filter entry in the same write: by-lookup holds every
   * account, by-filter the accounts of one status, both newest first.
   */
  accountListEntry: (createdAt: string, accountId: string): AccountListKey => ({ gsi1pk: 'ACCOUNTS', gsi1sk: `${createdAt}#${accountId}` }),
  accountListPartition: 'ACCOUNTS',
  accountStatusEntry: (status: string, createdAt: string, accountId: string): IndexKey => ({
    gsi2pk: `ACCOUNTS#${status}`,
    gsi2sk: `${createdAt}#${accountId}`,
  }),
  accountStatusPartition: (status: string): string => `ACCOUNTS#${status}`,
  /**
   * One per (address, account): an account's address is a contact address that several accounts
   * may share, so a lookup by address answers every account with it, newest first.
   */
  accountEmail: (email: string, createdAt: string, accountId: string): ItemKey => ({ pk: `ACCOUNTEMAIL#${email}`, sk: `${createdAt}#${accountId}` }),
  accountEmailPartition: (email: string): string => `ACCOUNTEMAIL#${email}`,
  /**
   * The staff audit log (shared/accounts/audit-repository.ts): one item per staff action, all in
   * one partition sorted by time then request id, so the log is one Query, newest first. Staff
   * actions are few (people clicking), far below a partition's write limit.
   */
  staffAudit: (createdAt: string, requestId: string): ItemKey => ({ pk: 'STAFFAUDIT', sk: `${createdAt}#${requestId}` }),
  staffAuditPartition: 'STAFFAUDIT',

  apiKey: (accountId: string, keyId: string): ItemKey => ({ pk: `${ACCOUNT}${accountId}`, sk: `KEY#${keyId}` }),
  apiKeyPrefix: 'KEY#',
  /** Looked up by the SHA-256 of the secret; one item per live secret. */
  apiKeyHash: (sha256Hex: string): ItemKey => ({ pk: `KEYHASH#${sha256Hex}`, sk: 'KEYHASH' }),

  /** A rate-limit subject's log of its latest admissions, one item per subject (see shared/accounts/rate-limit/service.ts). */
  rateLog: (subject: string): ItemKey => ({ pk: `RATE#${subject}`, sk: 'LOG' }),
  /**
   * Rate-limit subjects: one budget per account, and one per client network for public and staff
   * routes: an IPv4 address, or an IPv6 address's /64, as `ipSubject` in shared/accounts/rate-limit/service.ts
   * names it (the key takes the network, never a raw address).
   */
  accountRateSubject: (accountId: string): string => `acct#${accountId}`,
  ipRateSubject: (network: string): string => `ip#${network}`,

  /** A message and its timeline share one partition: one Query reads both. */
  message: (messageId: string): ItemKey => ({ pk: `MSG#${messageId}`, sk: 'MSG' }),
  messagePartition: (messageId: string): string => `MSG#${messageId}`,
  /**
   * A message's content when it is too large to ride on the message item and small enough to stay
   * in the table (shared/sending/messages/content.ts): written once, before the message item, never
   * updated. Sorts before the timeline (`EVT#…`) and the message (`MSG`), so the timeline read
   * passes it over.
   */
  messageContent: (messageId: string, variant?: string): ItemKey => ({ pk: `MSG#${messageId}`, sk: variant === undefined ? 'CONTENT' : `CONTENT#${variant}` }),
  messageEvent: (messageId: string, providerEventId: string): ItemKey => ({ pk: `MSG#${messageId}`, sk: `EVT#${providerEventId}` }),
  /**
   * The mark that one accepting attempt's spend reservation for the message was given back
   * (shared/billing/spend-caps/reserve.ts giveBackOnce): created once, so it is given back once.
   * Sorts before the timeline (`EVT#…`), so the timeline read never meets it; expires (TTL).
   */
  spendReturned: (messageId: string, attemptId: string): ItemKey => ({ pk: `MSG#${messageId}`, sk: `BACK#${attemptId}` }),
  messageEventPrefix: 'EVT#',
  /** by-message index entry of a message: an account's messages, newest first by id. */
  /**
   * by-message index entry of a message: an account's messages, newest first. A message id derived
   * from its idempotency key (shared/sending/messages/message-id.ts) does not sort by time, so its entry's
   * sort key is `msg_`, the ULID time of `createdAtMs`, then the id's body; an entry written
   * without it (messages whose ULID id sorts by time) is the id itself. Both sort together by time.
   */
  messageListEntry: (accountId: string, messageId: string, createdAtMs?: number): MessageListKey => ({
    gsi3pk: `${ACCOUNT}${accountId}#MSG`,
    gsi3sk: createdAtMs === undefined ? messageId : `msg_${encodeTime(Math.max(0, createdAtMs), 10).toLowerCase()}${messageId.slice(4)}`,
  }),
  /** The message id of a by-message entry's sort key (either form above). */
  messageIdOfListEntry: (gsi3sk: string): string => (gsi3sk.length === 30 ? gsi3sk : `msg_${gsi3sk.slice(14)}`),
  messageListPartition: (accountId: string): string => `${ACCOUNT}${accountId}#MSG`,
  /** One item per (account, idempotency key); the key is hashed to bound its size. */
  idempotency: (accountId: string, keyDigest: string): ItemKey => ({ pk: `IDEM#${accountId}#${keyDigest}`, sk: 'IDEM' }),
  /**
   * by-lookup entry of a pending idempotency claim: the outbox. Spread over OUTBOX_SHARDS partitions
   * by the key digest; sorted by lease end, so a sweep reads the claims whose lease is over.
   */
  outboxEntry: (keyDigest: string, leaseUntilMs: number): OutboxKey => ({
    gsi1pk: `OUTBOX#${outboxShard(keyDigest)}`,
    gsi1sk: `${String(leaseUntilMs).padStart(15, '0')}#${keyDigest}`,
  }),

  /**
   * by-lookup entry of a message not yet taken by the send worker (the outbox): spread over
   * OUTBOX_SHARDS partitions by the id, sorted by when a sweep may hand it on again.
   */
  messageOutboxEntry: (messageId: string, dueMs: number): OutboxKey => ({
    gsi1pk: `OUTBOX#${(messageId.charCodeAt(messageId.length - 1) + messageId.charCodeAt(messageId.length - 2)) % OUTBOX_SHARDS}`,
    gsi1sk: `${String(dueMs).padStart(15, '0')}#${messageId}`,
  }),

  suppression: (accountId: string, channel: string, recipient: string): ItemKey => ({ pk: `${ACCOUNT}${accountId}`, sk: `SUPP#${channel}#${recipient}` }),
  suppressionPrefix: (channel?: string): string => (channel ? `SUPP#${channel}#` : 'SUPP#'),
  /** by-filter index partition of an account's suppressions. */
  suppressionListPartition: (accountId: string): string => `${ACCOUNT}${accountId}#SUPP`,
  /** by-filter index entry of a suppression: the account's suppressions, most recently changed first. */
  suppressionListEntry: (accountId: string, updatedAt: string, channel: string, recipient: string): IndexKey => ({
    gsi2pk: `${ACCOUNT}${accountId}#SUPP`,
    gsi2sk: `${updatedAt}#${channel}#${recipient}`,
  }),

  domain: (accountId: string, domain: string): ItemKey => ({ pk: `${ACCOUNT}${accountId}`, sk: `DOMAIN#${domain}` }),
  domainPrefix: 'DOMAIN#',
  /** One owner per domain name across the deployment: a provider identity exists once. */
  domainClaim: (domain: string): ItemKey => ({ pk: `DOMAINNAME#${domain}`, sk: 'DOMAINNAME' }),
  testRecipient: (accountId: string, recipientId: string): ItemKey => ({ pk: `${ACCOUNT}${accountId}`, sk: `TESTRCPT#${recipientId}` }),
  testRecipientPrefix: 'TESTRCPT#',
  /** Rate-limit subject of the one-time link mails sent to one address for one account. */
  testRecipientLinkMails: (accountId: string, email: string): string => `testlink#${accountId}#${email}`,
  /** Sends to one test recipient on one UTC day. */
  testSendCounter: (accountId: string, recipient: string, day: string): ItemKey => ({ pk: `TESTSENDS#${accountId}#${recipient}`, sk: day }),

  /**
   * One-time secrets (shared/accounts/one-time-tokens): a link token, looked up by the SHA-256 of its
   * secret; the newest token of a (purpose, subject), the only one that redeems; a login code,
   * looked up by (purpose, subject) since six digits are too few to be a key of their own.
   */
  oneTimeToken: (digest: string): ItemKey => ({ pk: `OTT#${digest}`, sk: 'OTT' }),
  oneTimeTokenSubject: (purpose: string, subject: string): ItemKey => ({ pk: `OTTSUBJ#${purpose}#${subject}`, sk: 'OTTSUBJ' }),
  loginCode: (purpose: string, subject: string): ItemKey => ({ pk: `OTTCODE#${purpose}#${subject}`, sk: 'OTTCODE' }),

  /** A person who signs in (shared/auth): their own partition, found by email through the unique email item. */
  user: (userId: string): ItemKey => ({ pk: `USER#${userId}`, sk: 'USER' }),
  /** One per normalized address across the deployment: sign-up writes it first, conditionally. */
  userEmail: (email: string): ItemKey => ({ pk: `USEREMAIL#${email}`, sk: 'USEREMAIL' }),
  /** A session, looked up by the SHA-256 of its cookie's id. */
  session: (digest: string): ItemKey => ({ pk: `SESSION#${digest}`, sk: 'SESSION' }),
  /** A user's sessions, so a password reset can end them all (one Query of the user's partition). */
  userSession: (userId: string, digest: string): ItemKey => ({ pk: `USER#${userId}`, sk: `SESS#${digest}` }),
  userSessionPrefix: 'SESS#',
  userPartition: (userId: string): string => `USER#${userId}`,
  /** A provider's account linked to a user (shared/auth/oauth): one per (provider, provider user id). */
  oauthIdentity: (provider: string, providerUserId: string): ItemKey => ({ pk: `OAUTHID#${provider}#${providerUserId}`, sk: 'OAUTHID' }),
  /**
   * Rate-limit subjects of the sign-in throttles (`fail-email`, `fail-ip`) and the auth mails
   * (`mail`), shared/auth/throttle.ts; `fail-ip` takes the client network, as ipRateSubject.
   */
  authBudget: (kind: 'fail-email' | 'fail-ip' | 'mail', value: string): string => `auth#${kind}#${value}`,

  webhook: (accountId: string, subscriptionId: string): ItemKey => ({ pk: `${ACCOUNT}${accountId}`, sk: `WEBHOOK#${subscriptionId}` }),
  webhookPrefix: 'WEBHOOK#',
  /** A subscription's deliveries, newest first by id. */
  webhookDelivery: (subscriptionId: string, deliveryId: string): ItemKey => ({ pk: `DELIVERIES#${subscriptionId}`, sk: deliveryId }),
  deliveriesPartition: (subscriptionId: string): string => `DELIVERIES#${subscriptionId}`,
  /** Why a message of `queue` ended in its DLQ: one item per queue and body hash (issue 32). */
  deadLetterNote: (queue: string, bodyHash: string): ItemKey => ({ pk: `DLQNOTE#${queue}`, sk: bodyHash }),

  broadcast: (accountId: string, broadcastId: string): ItemKey => ({ pk: `${ACCOUNT}${accountId}`, sk: `BCAST#${broadcastId}` }),
  broadcastPrefix: 'BCAST#',
  /** One slice of a broadcast's recipient list; the index is zero-padded so chunks sort in order. */
  broadcastRecipients: (broadcastId: string, chunk: number): ItemKey => ({ pk: `BCAST#${broadcastId}`, sk: `RCPT#${String(chunk).padStart(5, '0')}` }),
  /**
   * One of a broadcast's stat counter shards (shared/audiences/broadcasts/stats.ts): a small item per shard,
   * each its own partition, so the events of a large broadcast spread their writes; never the
   * broadcast item, which holds the content.
   */
  broadcastStatShard: (accountId: string, broadcastId: string, shard: number): ItemKey => ({
    pk: `BSTATS#${accountId}#${broadcastId}#${String(shard).padStart(2, '0')}`,
    sk: 'BSTATS',
  }),
  /**
   * The mark that a broadcast message's event type is counted: once per message and type. In the
   * message's partition, sorted before the timeline (`EVT#…`), so the timeline read passes it over.
   */
  broadcastStatMarker: (messageId: string, type: string): ItemKey => ({ pk: `MSG#${messageId}`, sk: `BSTAT#${type}` }),
  /** A broadcast's content (inline parts or the pinned template), apart from the often-written broadcast item. */
  broadcastContent: (broadcastId: string, version: number): ItemKey => ({ pk: `BCAST#${broadcastId}`, sk: `CONTENT#${version}` }),

  /**
   * A template with its current version's content, in its account's partition (the list reads
   * them newest first by id). Earlier versions are immutable items in the template's own partition.
   */
  template: (accountId: string, templateId: string): ItemKey => ({ pk: `${ACCOUNT}${accountId}`, sk: `TMPL#${templateId}` }),
  templatePrefix: 'TMPL#',
  /** One version of a template, written once when a later version supersedes it; zero-padded so versions sort. */
  templateVersion: (templateId: string, version: number): ItemKey => ({ pk: `TMPL#${templateId}`, sk: `V#${String(version).padStart(10, '0')}` }),
  templateVersionsPartition: (templateId: string): string => `TMPL#${templateId}`,

  /** A snippet (a partial templates include by name), in its account's partition, listed newest first by id. */
  snippet: (accountId: string, snippetId: string): ItemKey => ({ pk: `${ACCOUNT}${accountId}`, sk: `SNIP#${snippetId}` }),
  snippetPrefix: 'SNIP#',
  /**
   * A snippet's name, lowercased: one per name and account, so names are unique case-insensitively.
   * It records which templates include the snippet (shared/sending/templates/snippets-repository.ts).
   */
  snippetName: (accountId: string, lowerName: string): ItemKey => ({ pk: `${ACCOUNT}${accountId}`, sk: `SNIPNAME#${lowerName}` }),

  /** A contact, in its account's partition, listed newest first by id. */
  contact: (accountId: string, contactId: string): ItemKey => ({ pk: `${ACCOUNT}${accountId}`, sk: `CONTACT#${contactId}` }),
  contactPrefix: 'CONTACT#',
  /** A contact's address, normalized: one per address and account, so addresses are unique (shared/audiences/contacts/claims-repository.ts). */
  contactEmail: (accountId: string, email: string): ItemKey => ({ pk: `${ACCOUNT}${accountId}`, sk: `CONTACTEMAIL#${email}` }),
  /** An approximate count of the account's contacts: what a dynamic list's member estimate scales by. */
  contactCount: (accountId: string): ItemKey => ({ pk: `${ACCOUNT}${accountId}`, sk: 'CONTACTCOUNT' }),
  /** A contact list (static or dynamic), in its account's partition, listed newest first by id. */
  contactList: (accountId: string, listId: string): ItemKey => ({ pk: `${ACCOUNT}${accountId}`, sk: `LIST#${listId}` }),
  contactListPrefix: 'LIST#',
  /**
   * One contact's membership of one static list, in the list's own partition: "is X a member" and
   * "add X" are single-item operations, and the members are one Query, newest contact first.
   */
  listMember: (accountId: string, listId: string, contactId: string): ItemKey => ({ pk: `LISTMEMBERS#${accountId}#${listId}`, sk: `MEMBER#${contactId}` }),
  listMembersPartition: (accountId: string, listId: string): string => `LISTMEMBERS#${accountId}#${listId}`,
  /** A contact import with its progress, in its account's partition (shared/audiences/imports/repository.ts). */
  contactImport: (accountId: string, importId: string): ItemKey => ({ pk: `${ACCOUNT}${accountId}`, sk: `IMPORT#${importId}` }),

  /** A hosted sign-up form, in its account's partition, listed newest first by id (shared/audiences/forms/repository.ts). */
  form: (accountId: string, formId: string): ItemKey => ({ pk: `${ACCOUNT}${accountId}`, sk: `FORM#${formId}` }),
  formPrefix: 'FORM#',
  /** Which account a form belongs to: what the public form routes, which know only the id, read first. */
  formRef: (formId: string): ItemKey => ({ pk: `FORMREF#${formId}`, sk: 'FORMREF' }),
  /** Rate-limit subject of the confirmation mails sent to one address for one account. */
  formConfirmMails: (accountId: string, email: string): string => `formmail#${accountId}#${email}`,

  /** An inbound route (shared/inbound-mail/routes/repository.ts), in its account's partition; outside `INB#`. */
  inboundRoute: (accountId: string, routeId: string): ItemKey => ({ pk: `${ACCOUNT}${accountId}`, sk: `INBROUTE#${routeId}` }),
  inboundRoutePrefix: 'INBROUTE#',
  /** A received email (list form), in its account's partition, listed newest first by id (shared/inbound-mail/receipt/repository.ts). */
  inboundEmail: (accountId: string, inboundId: string): ItemKey => ({ pk: `${ACCOUNT}${accountId}`, sk: `INB#${inboundId}` }),
  inboundEmailPrefix: 'INB#',
  /** What only the full form shows (text, html, headers), apart from the list's items; sorts outside `INB#`. */
  inboundContent: (accountId: string, inboundId: string): ItemKey => ({ pk: `${ACCOUNT}${accountId}`, sk: `INBCONTENT#${inboundId}` }),
  /** One per received message and recipient (digest of the raw bytes' SHA-256, account and recipient): a redelivery of the same bytes finds its inbound id and raw object. */
  inboundReceipt: (digest: string): ItemKey => ({ pk: `INBRCPT#${digest}`, sk: 'INBRCPT' }),

  /**
   * The Mail app (shared/inbound-mail/mailbox). An inbox is keyed by its address, so the address is unique per
   * account by the key itself; a label by its lowercased name, so names are unique without regard
   * to case and the list reads in name order.
   */
  mailInbox: (accountId: string, address: string): ItemKey => ({ pk: `${ACCOUNT}${accountId}`, sk: `MAILBOX#${address}` }),
  mailInboxPrefix: 'MAILBOX#',
  mailLabel: (accountId: string, lowerName: string): ItemKey => ({ pk: `${ACCOUNT}${accountId}`, sk: `MAILLABEL#${lowerName}` }),
  mailLabelPrefix: 'MAILLABEL#',
  /** A thread's state (subject, counts, flags, folder, labels), rewritten as mail arrives and as it is read, starred, moved. */
  mailThread: (accountId: string, threadId: string): ItemKey => ({ pk: `${ACCOUNT}${accountId}`, sk: `MAILTHREAD#${threadId}` }),
  /** One message's place in its thread, in the thread's own partition, oldest first. */
  mailThreadEntry: (accountId: string, threadId: string, occurredAt: string, source: string, id: string): ItemKey => ({
    pk: `MAILTHREADMSGS#${accountId}#${threadId}`,
    sk: `M#${occurredAt}#${source}#${id}`,
  }),
  mailThreadEntriesPartition: (accountId: string, threadId: string): string => `MAILTHREADMSGS#${accountId}#${threadId}`,
  /** Which thread a message (inbound or outbound) is in, and whether the thread has counted it. */
  mailMessageRef: (accountId: string, source: string, id: string): ItemKey => ({ pk: `${ACCOUNT}${accountId}`, sk: `MAILREF#${source}#${id}` }),
  /**
   * A thread's pointer in one list view (a folder, starred, sent, each also per address), sorted by
   * the thread's last_message_at: moved (put new, delete old) when that changes.
   */
  mailViewEntry: (accountId: string, view: string, lastMessageAt: string, threadId: string): ItemKey => ({
    pk: `MAILVIEW#${accountId}#${view}`,
    sk: `${lastMessageAt}#${threadId}`,
  }),
  mailViewPartition: (accountId: string, view: string): string => `MAILVIEW#${accountId}#${view}`,
  /**
   * The Mail search index (shared/inbound-mail/mailbox/index-*.ts): one posting per account, term and message,
   * newest first by the message's time, and one search document per message (what a result shows
   * and what a quoted phrase is checked against).
   */
  mailPosting: (accountId: string, term: string, occurredAt: string, source: string, id: string): ItemKey => ({
    pk: `MAILIDX#${accountId}#${term}`,
    sk: `${occurredAt}#${source}#${id}`,
  }),
  mailPostingPartition: (accountId: string, term: string): string => `MAILIDX#${accountId}#${term}`,
  mailDoc: (accountId: string, source: string, id: string): ItemKey => ({ pk: `MAILDOC#${accountId}#${source}#${id}`, sk: 'DOC' }),

  usage: (accountId: string, period: string): ItemKey => ({ pk: `${ACCOUNT}${accountId}`, sk: `USAGE#${period}` }),
  /** An account's sending reputation counters of one UTC hour (YYYY-MM-DDTHH), shared/billing/reputation. */
  reputationBucket: (accountId: string, hour: string): ItemKey => ({ pk: `${ACCOUNT}${accountId}`, sk: `REPUTATION#${hour}` }),
  /** The deployment-wide board: one entry per account ever judged (GET /v1/admin/reputation). */
  reputationBoard: (accountId: string): ItemKey => ({ pk: 'REPUTATION', sk: `${ACCOUNT}${accountId}` }),
  reputationBoardPartition: 'REPUTATION',
  /** An account's spend cap (no key) or one key's, in the account's partition (shared/billing/spend-caps). */
  spendCap: (accountId: string, keyId: string | null): ItemKey => ({ pk: `${ACCOUNT}${accountId}`, sk: keyId === null ? 'SPENDCAP#ACCOUNT' : `SPENDCAP#KEY#${keyId}` }),
  spendCapPrefix: 'SPENDCAP#',

  /** An account's billing state: its Stripe customer and subscription (shared/billing/repository.ts). */
  billing: (accountId: string): ItemKey => ({ pk: `${ACCOUNT}${accountId}`, sk: 'BILLING' }),
  /** Which account a Stripe customer belongs to: what a Stripe event, which names only the customer, reads first. */
  billingCustomer: (customerId: string): ItemKey => ({ pk: `STRIPECUS#${customerId}`, sk: 'STRIPECUS' }),
  /** A Stripe event already applied, kept while Stripe may still redeliver it. */
  billingEvent: (eventId: string): ItemKey => ({ pk: `STRIPEEVT#${eventId}`, sk: 'STRIPEEVT' }),

  /** Local scheduler only: due schedules sort by time inside one partition. */
  scheduleDue: (dueIso: string, scheduleId: string): ItemKey => ({ pk: 'SCHEDULES', sk: `${dueIso}#${scheduleId}` }),
  /** The due item a schedule ref points at, by the sort key the ref recorded. */
  scheduleDueAt: (dueSortKey: string): ItemKey => ({ pk: 'SCHEDULES', sk: dueSortKey }),
  /** Sorts after every due item of this instant: the upper bound of "due at or before". */
  scheduleDueUpTo: (dueIso: string): string => `${dueIso}#~`,
  schedulesPartition: 'SCHEDULES',
  scheduleRef: (scheduleId: string): ItemKey => ({ pk: `SCHEDULE#${scheduleId}`, sk: 'SCHEDULE' }),
} as const;

export function accountPartition(accountId: string): string {
  return `${ACCOUNT}${accountId}`;
}

/** A key condition with its values: what a repository hands the store's query for one access pattern. */
export interface KeyQuery {
  index?: string;
  keyCondition: string;
  values: Record<string, unknown>;
}

/** The key conditions of the access patterns, spelled once. */
export const keyQueries = {
  /** A message with its timeline: the items of its partition from `EVT#` on, so never its content item. */
  messageTimeline: (messageId: string): KeyQuery => ({ keyCondition: 'pk = :pk AND sk >= :from', values: { ':pk': keys.messagePartition(messageId), ':from': keys.messageEventPrefix } }),
  /** Every item of one partition (a subscription's deliveries). */
  partition: (pk: string): KeyQuery => ({ keyCondition: 'pk = :pk', values: { ':pk': pk } }),
  /** An account's items of one kind: its keys, domains, webhooks, test recipients, broadcasts. */
  accountItems: (accountId: string, skPrefix: string): KeyQuery => ({
    keyCondition: 'pk = :pk AND begins_with(sk, :prefix)',
    values: { ':pk': accountPartition(accountId), ':prefix': skPrefix },
  }),
  /** Every account, newest first (by-lookup, keys only: the staff list reads the account items). */
  allAccounts: (): KeyQuery => ({ index: table.indexes.byLookup.name, keyCondition: 'gsi1pk = :pk', values: { ':pk': keys.accountListPartition } }),
  /** A user's session entries (shared/auth/sessions-repository.ts). */
  userSessions: (userId: string): KeyQuery => ({
    keyCondition: 'pk = :pk AND begins_with(sk, :prefix)',
    values: { ':pk': keys.userPartition(userId), ':prefix': keys.userSessionPrefix },
  }),
  /** One by-filter index partition (an account's suppressions), most recently changed first. */
  byFilter: (gsi2pk: string): KeyQuery => ({ index: table.indexes.byFilter.name, keyCondition: 'gsi2pk = :pk', values: { ':pk': gsi2pk } }),
  /** One outbox shard's entries whose lease ended at or before `leaseEndingBy` (epoch ms). */
  outboxDue: (shard: number, leaseEndingBy: number): KeyQuery => ({
    index: table.indexes.byLookup.name,
    keyCondition: 'gsi1pk = :pk AND gsi1sk <= :upTo',
    values: { ':pk': `OUTBOX#${shard}`, ':upTo': `${String(leaseEndingBy).padStart(15, '0')}#~` },
  }),
  /** An account's reputation buckets from one UTC hour to another, both inclusive. */
  reputationBuckets: (accountId: string, fromHour: string, toHour: string): KeyQuery => ({
    keyCondition: 'pk = :pk AND sk BETWEEN :from AND :to',
    values: { ':pk': accountPartition(accountId), ':from': `REPUTATION#${fromHour}`, ':to': `REPUTATION#${toHour}` },
  }),
  /** One search term's postings between two sort keys, both inclusive (shared/inbound-mail/mailbox/index-repository.ts). */
  mailPostingsBetween: (partition: string, from: string, to: string): KeyQuery => ({
    keyCondition: 'pk = :pk AND sk BETWEEN :from AND :to',
    values: { ':pk': partition, ':from': from, ':to': to },
  }),
  /** Local scheduler: the schedules due at or before an instant. */
  dueUpTo: (dueIso: string): KeyQuery => ({ keyCondition: 'pk = :pk AND sk <= :upTo', values: { ':pk': keys.schedulesPartition, ':upTo': keys.scheduleDueUpTo(dueIso) } }),
} as const;
