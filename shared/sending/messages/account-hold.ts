// Whether anything may still leave for an account. Suspension answers every request 403 at the
// pipeline; what the account had accepted before (queued and scheduled sends, Mail app sends,
// broadcast chunks, inbound route forwards) is stopped where it would leave, with this reason
// recorded where that path records outcomes. A reputation pause (shared/billing/reputation) stops live
// sends the same way (sendHold); test-mode sends never reach the provider and go on.
import type { AccountItem } from '../../accounts/service';

export interface Hold {
  /** A stable code for programs (a timeline event's payload.reason). */
  reason: 'account_suspended' | 'account_gone' | 'sending_paused';
  /** The words shown to people (a broadcast's failure_reason, a timeline event's payload.error). */
  detail: string;
}

/** Why nothing more leaves for the account, or undefined when it may send. */
export function accountHold(account: Pick<AccountItem, 'status'> | undefined): Hold | undefined {
  if (!account) return { reason: 'account_gone', detail: 'the account is gone' };
  if (account.status === 'suspended') return { reason: 'account_suspended', detail: 'the account is suspended' };
  return undefined;
}

/** As accountHold, and for a live send also the account's reputation pause, until staff lift it. */
export function sendHold(account: Pick<AccountItem, 'status' | 'reputation_state'> | undefined, live: boolean): Hold | undefined {
  const hold = accountHold(account);
  if (hold || !live || account?.reputation_state !== 'paused') return hold;
  return { reason: 'sending_paused', detail: 'live sending is paused: the bounce or complaint rate passed the pause level' };
}
