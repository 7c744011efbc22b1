// One-time secrets in the store. A link token is an item keyed by the SHA-256 of its secret, and
// its (purpose, subject) has a pointer naming the newest token's digest: a redemption takes the
// token item (one conditional delete that answers what it held, so two racing redemptions cannot
// both win) and then the pointer, conditional on naming that digest, so an older token of the
// same subject redeems nothing. A login code is one item per (purpose, subject) holding the code's
// digest and its wrong attempts.
import { keys, type ItemKey } from '../../db/keys';
import { wrote, type Store } from '../../db/store';

export interface OneTimeTokenItem extends ItemKey {
  entity: 'one_time_token';
  purpose: string;
  subject: string;
  /** Epoch seconds (the table's TTL attribute); checked on use, since TTL deletion lags. */
  expires_at: number;
  /** What the issuer keeps with the token (a pending form sign-up; an OAuth state's provider and PKCE verifier); absent for most purposes. */
  data?: TokenData;
}

/** A small object carried by a token: the caller's, stored as given. */
export type TokenData = Record<string, unknown>;

export interface TokenSubjectItem extends ItemKey {
  entity: 'one_time_token_subject';
  digest: string;
  expires_at: number;
}

export interface LoginCodeItem extends ItemKey {
  entity: 'login_code';
  digest: string;
  attempts: number;
  expires_at: number;
}

export class OneTimeTokenRepository {
  constructor(private readonly store: Store) {}

  /**
   * Stores a token and makes it its subject's newest; answers the digest of the token it replaced
   * (to delete), if any. Digests of fresh random secrets never collide.
   */
  async create(digest: string, token: { purpose: string; subject: string; expiresAt: number; data?: TokenData }): Promise<string | undefined> {
    const item: OneTimeTokenItem = { ...keys.oneTimeToken(digest), entity: 'one_time_token', purpose: token.purpose, subject: token.subject, expires_at: token.expiresAt };
    if (token.data) item.data = token.data;
    await this.store.create(item);
    const pointer = keys.oneTimeTokenSubject(token.purpose, token.subject);
    const previous = await this.store.get<TokenSubjectItem>(pointer);
    await this.store.put<TokenSubjectItem>({ ...pointer, entity: 'one_time_token_subject', digest, expires_at: token.expiresAt });
    return previous?.digest;
  }

  /** Reads the token item without using it up. */
  get(digest: string): Promise<OneTimeTokenItem | undefined> {
    return this.store.get<OneTimeTokenItem>(keys.oneTimeToken(digest));
  }

  /** Whether `digest` is still its subject's newest token (reads the pointer, changes nothing). */
  async isNewest(purpose: string, subject: string, digest: string): Promise<boolean> {
    return (await this.store.get<TokenSubjectItem>(keys.oneTimeTokenSubject(purpose, subject)))?.digest === digest;
  }

  /** Takes the token item: the one redemption that gets it; undefined when it is gone. */
  take(digest: string): Promise<OneTimeTokenItem | undefined> {
    return this.store.take<OneTimeTokenItem>(keys.oneTimeToken(digest));
  }

  /** Ends the subject's pointer if it names `digest`; false when a newer token replaced it (or none is left). */
  takeNewest(purpose: string, subject: string, digest: string): Promise<boolean> {
    return wrote(this.store.delete(keys.oneTimeTokenSubject(purpose, subject), { expression: 'digest = :digest', values: { ':digest': digest } }));
  }

  async remove(digest: string): Promise<void> {
    await this.store.delete(keys.oneTimeToken(digest));
  }

  /** Ends the subject's newest token, whatever it is. */
  async revokeSubject(purpose: string, subject: string): Promise<void> {
    const pointer = await this.store.take<TokenSubjectItem>(keys.oneTimeTokenSubject(purpose, subject));
    if (pointer) await this.remove(pointer.digest);
  }

  /** A new code replaces the subject's previous one, its attempts and all. */
  async putCode(purpose: string, subject: string, digest: string, expiresAt: number): Promise<void> {
    await this.store.put<LoginCodeItem>({ ...keys.loginCode(purpose, subject), entity: 'login_code', digest, attempts: 0, expires_at: expiresAt });
  }

  getCode(purpose: string, subject: string): Promise<LoginCodeItem | undefined> {
    return this.store.get<LoginCodeItem>(keys.loginCode(purpose, subject));
  }

  /** Uses the code up if it is still `digest` with attempts left; false when another use came first. */
  takeCode(purpose: string, subject: string, digest: string, maxAttempts: number): Promise<boolean> {
    return wrote(
      this.store.delete(keys.loginCode(purpose, subject), {
        expression: 'digest = :digest AND attempts < :max',
        values: { ':digest': digest, ':max': maxAttempts },
      }),
    );
  }

  /**
   * Counts a wrong attempt against the code `digest`: false when this was the last one allowed
   * (the caller then uses the code up) or the code changed meanwhile.
   */
  countWrongAttempt(purpose: string, subject: string, digest: string, maxAttempts: number): Promise<boolean> {
    return wrote(
      this.store.update(keys.loginCode(purpose, subject), {
        expression: 'ADD attempts :one',
        condition: 'digest = :digest AND attempts < :last',
        values: { ':one': 1, ':digest': digest, ':last': maxAttempts - 1 },
      }),
    );
  }

  async removeCode(purpose: string, subject: string, digest: string): Promise<void> {
    await wrote(this.store.delete(keys.loginCode(purpose, subject), { expression: 'digest = :digest', values: { ':digest': digest } }));
  }
}
