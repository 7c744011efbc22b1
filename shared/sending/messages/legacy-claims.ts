// Idempotency records of the design before messages were their own (./message-id.ts): one item
// per (account, key) that claimed the send, then pointed at its message. None is written any more;
// those a deployment still holds are read here so that GET /v1/messages?idempotency_key= finds
// their messages, and the sweep resolves the ones a request died holding (./recovery.ts).
import { sha256Hex } from '../../crypto/crypto';
import { keys, type ItemKey } from '../../db/keys';
import { type OutboxKey } from '../../db/schema';
import { wrote, type Store } from '../../db/store';
import type { SendDecision } from './idempotency';

export interface LegacyClaim extends ItemKey, Partial<OutboxKey> {
  entity: 'idempotency';
  account_id: string;
  idempotency_key: string;
  body_digest: string;
  message_id: string;
  decision: SendDecision;
  state: 'pending' | 'done';
  lease_until: number;
  created_at: string;
}

const claimKey = (accountId: string, idempotencyKey: string): ItemKey => keys.idempotency(accountId, sha256Hex(idempotencyKey));

export class LegacyClaims {
  constructor(private readonly store: Store) {}

  get(accountId: string, idempotencyKey: string): Promise<LegacyClaim | undefined> {
    return this.store.get<LegacyClaim>(claimKey(accountId, idempotencyKey));
  }

  /** Its message is stored and handed on: the claim leaves the outbox and only replays. */
  async markDone(claim: LegacyClaim): Promise<void> {
    const { gsi1pk: _pk, gsi1sk: _sk, ...rest } = claim;
    await this.store.put({ ...rest, state: 'done' });
  }

  /** A claim whose message was never stored is deleted (unless it changed meanwhile): a retry starts afresh. */
  release(claim: LegacyClaim): Promise<boolean> {
    return wrote(
      this.store.delete(claimKey(claim.account_id, claim.idempotency_key), {
        expression: '#state = :pending AND lease_until = :lease',
        names: { '#state': 'state' },
        values: { ':pending': 'pending', ':lease': claim.lease_until },
      }),
    );
  }
}
