// Test recipient use cases: register (and mail a one-time link), verify through the link, list,
// remove. The link is a one-time token (shared/accounts/one-time-tokens): shown only in the mail, stored as
// its SHA-256, and only an entry's newest link verifies it.
import { getAccount, type AccountItem } from '../../accounts/service';
import { keys } from '../../db/keys';
import type { Store } from '../../db/store';
import { sharedSenderMailbox } from '../../formats/shared-sender';
import { ApiError, NotFoundError } from '../../errors';
import { invalidToken as invalidTokenError, issueToken, redeemToken, revokeToken } from '../../accounts/one-time-tokens/service';
import type { Ids } from '../../ports/ids';
import { mapPage, pageRequest, type Page, type PageInput } from '../../pagination';
import type { Clock } from '../../ports/clock';
import { PermanentSendError, type Mailer } from '../../ports/mailer';
import { admit } from '../../accounts/rate-limit/service';
import { entryOf, MAX_TEST_RECIPIENTS, toTestRecipientView } from './model';
import { linkMail } from './pages';
import { TestRecipientRepository, type TestRecipientItem } from './repository';
import type { CreateTestRecipientBody, TestRecipientView, VerifiedTestRecipientView } from './schemas';

// The send path's questions live in sandbox.ts; callers import every use case from here.
export { admitTestSend, findTestRecipientByEmail, isVerifiedTestRecipient, verifiedTestRecipientAddresses } from './sandbox';

/** Confirmation mails per address and account in a sliding hour: the link goes to anyone's inbox. */
export const LINK_MAILS_PER_HOUR = 3;
const HOUR_MS = 3600_000;

export interface TestRecipientDeps {
  store: Store;
  clock: Clock;
  ids: Ids;
  mailer: Mailer;
  config: { sharedEmailSender: string; publicBaseUrl?: string };
}

export interface Registration {
  /** False when the address was already registered (its entry is answered, 200). */
  created: boolean;
  recipient: TestRecipientView;
}

const LINK_HINT = 'register the address again for a new link';
/** The link's subject in shared/accounts/one-time-tokens: the entry it verifies. */
const linkSubject = (accountId: string, recipientId: string): string => `${accountId}/${recipientId}`;

const tooMany = (): ApiError =>
  new ApiError('too_many_test_recipients', `an account may have at most ${MAX_TEST_RECIPIENTS} test recipients (pending or verified); delete one first`);

function sharedSender(config: TestRecipientDeps['config']): string {
  const from = sharedSenderMailbox(config);
  if (!from) throw new ApiError('test_send_not_configured', 'this deployment has no usable shared sender address (SHARED_EMAIL_SENDER)');
  return from;
}

async function admitLinkMail(deps: Pick<TestRecipientDeps, 'store' | 'clock'>, accountId: string, email: string): Promise<void> {
  const decision = await admit(deps, keys.testRecipientLinkMails(accountId, email), LINK_MAILS_PER_HOUR, HOUR_MS);
  if (decision.allowed) return;
  throw new ApiError('rate_limit_exceeded', `at most ${LINK_MAILS_PER_HOUR} confirmation mails per address per hour; retry after the number of seconds in Retry-After`, {
    headers: { 'retry-after': String(decision.retryAfterSeconds ?? 1) },
  });
}

/**
 * Registrations that raced past the count check settle here, after their item is written: in id
 * order, an address's first entry wins and only the first three addresses stay. Every writer
 * re-reads after its own write, so the later of two racing writers sees both and yields.
 */
async function settle(recipients: TestRecipientRepository, mine: TestRecipientItem): Promise<TestRecipientItem> {
  const firstByAddress = new Map<string, TestRecipientItem>();
  for (const item of await recipients.listAll(mine.account_id)) {
    if (!firstByAddress.has(item.email)) firstByAddress.set(item.email, item);
  }
  const winner = firstByAddress.get(mine.email) ?? mine;
  const admitted = [...firstByAddress.values()].slice(0, MAX_TEST_RECIPIENTS).some((i) => i.id === mine.id);
  if (winner.id === mine.id && admitted) return mine;
  await recipients.remove(mine.account_id, mine.id);
  if (winner.id !== mine.id) return winner;
  throw tooMany();
}

function publicOrigin(config: TestRecipientDeps['config']): string {
  if (!config.publicBaseUrl) throw new Error('PUBLIC_BASE_URL is not configured; the confirmation link cannot be built');
  return config.publicBaseUrl;
}

/** A fresh link for a pending entry: only the newest link verifies. Mails it from the shared sender. */
async function sendLink(deps: TestRecipientDeps, account: AccountItem, item: TestRecipientItem, from: string): Promise<void> {
  const { token } = await issueToken(deps, 'test_recipient', linkSubject(item.account_id, item.id));
  // The configured origin, never the request's Host: a forged Host would otherwise mail a link to
  // the forger's site carrying a real token.
  const link = `${publicOrigin(deps.config)}/v1/test-recipients/verify?token=${token}`;
  try {
    await deps.mailer.send({ from, to: item.email, ...linkMail({ accountName: account.name, email: item.email, link }), messageId: item.id, accountId: item.account_id });
  } catch (error) {
    if (error instanceof PermanentSendError) {
      throw new ApiError('test_send_not_configured', 'the mail provider refused the confirmation mail; this deployment cannot send it', { cause: error });
    }
    throw error;
  }
}

/**
 * Registers an address and mails it a one-time link. An address already registered answers its
 * entry; a pending one gets a fresh link (the previous one stops working).
 */
export async function registerTestRecipient(
  deps: TestRecipientDeps,
  accountId: string,
  body: CreateTestRecipientBody,
  caller: { testMode: boolean },
): Promise<Registration> {
  // A test-mode key sends nothing; the link is real mail to someone's inbox.
  if (caller.testMode) throw new ApiError('forbidden', 'a test-mode key sends no mail, so it cannot register test recipients; use a live key');
  const from = sharedSender(deps.config);
  const account = await getAccount(deps.store, accountId);
  if (!account) throw new NotFoundError('account');
  const email = body.email;
  const recipients = new TestRecipientRepository(deps.store);
  const items = await recipients.listAll(accountId);
  const existing = entryOf(items, email);
  if (existing) {
    if (existing.status === 'pending') {
      await admitLinkMail(deps, accountId, email);
      await sendLink(deps, account, existing, from);
    }
    return { created: false, recipient: toTestRecipientView(existing) };
  }
  if (new Set(items.map((i) => i.email)).size >= MAX_TEST_RECIPIENTS) throw tooMany();
  await admitLinkMail(deps, accountId, email);
  const id = deps.ids.next('trc');
  const item = await recipients.create({
    id,
    account_id: accountId,
    email,
    status: 'pending',
    created_at: deps.clock.now().toISOString(),
    verified_at: null,
  });
  const settled = await settle(recipients, item);
  // A concurrent registration of the same address won; it mails the link.
  if (settled.id !== item.id) return { created: false, recipient: toTestRecipientView(settled) };
  try {
    await sendLink(deps, account, item, from);
  } catch (error) {
    // All or nothing: a registration whose mail never left is undone, so a retry starts clean.
    // If the undo fails too, the original error is the one worth reporting: the pending entry left
    // behind is harmless, and registering the address again mails a new link.
    await removeTestRecipient(deps, accountId, id).catch(() => undefined);
    throw error;
  }
  return { created: true, recipient: toTestRecipientView(item) };
}

/** The one-time link: verifies its entry and is used up, so of two clicks only one succeeds. */
export async function verifyTestRecipient(deps: { store: Store; clock: Clock }, token: string | undefined): Promise<VerifiedTestRecipientView> {
  const subject = await redeemToken(deps, 'test_recipient', token, LINK_HINT);
  const [accountId = '', recipientId = ''] = subject.split('/');
  // Only while the entry exists and is pending.
  const item = await new TestRecipientRepository(deps.store).markVerified(accountId, recipientId, deps.clock.now().toISOString());
  if (!item) throw invalidTokenError(LINK_HINT);
  return { id: item.id, email: item.email, status: 'verified' };
}

export async function listTestRecipients(
  deps: { store: Store; cursorSecret: string },
  accountId: string,
  page: PageInput,
): Promise<Page<TestRecipientView>> {
  const out = await new TestRecipientRepository(deps.store).list(accountId, pageRequest(deps, { accountId, collection: 'test_recipients' }, page));
  return mapPage(out, toTestRecipientView);
}

/** Removes an entry and its outstanding link; 404 for unknown ids and other accounts' entries. */
export async function removeTestRecipient(deps: { store: Store }, accountId: string, recipientId: string): Promise<void> {
  const recipients = new TestRecipientRepository(deps.store);
  const item = await recipients.get(accountId, recipientId);
  if (!item) throw new NotFoundError('test recipient');
  if (!(await recipients.remove(accountId, recipientId))) throw new NotFoundError('test recipient');
  await revokeToken(deps, 'test_recipient', linkSubject(accountId, recipientId));
}
