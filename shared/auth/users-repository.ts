// People who sign in, in the store: a user item in its own partition, and one item per normalized
// address that sign-up claims first, conditionally, so an address belongs to one user.
import { keys, type ItemKey } from '../db/keys';
import { wrote, type Store } from '../db/store';

export type UserRole = 'owner' | 'staff';

export interface UserItem extends ItemKey {
  entity: 'user';
  id: string;
  /** Trimmed and lower-cased. */
  email: string;
  name: string | null;
  /** Absent for a user who signs in only through OAuth. */
  password_hash?: string;
  email_verified: boolean;
  role: UserRole;
  account_id: string;
  created_at: string;
  updated_at: string;
}

export type NewUser = Omit<UserItem, keyof ItemKey | 'entity'>;

interface UserEmailItem extends ItemKey {
  entity: 'user_email';
  user_id: string;
}

/** No user has this id: what an unknown address reads, so it costs the round trips a known one does. */
const NO_USER = 'usr_none';

export class UserRepository {
  constructor(private readonly store: Store) {}

  get(userId: string): Promise<UserItem | undefined> {
    return this.store.get<UserItem>(keys.user(userId));
  }

  /** The user of an address. An unknown address makes the same two reads as a known one. */
  async findByEmail(email: string): Promise<UserItem | undefined> {
    const claim = await this.store.get<UserEmailItem>(keys.userEmail(email));
    const user = await this.get(claim?.user_id ?? NO_USER);
    return claim ? user : undefined;
  }

  /** false when the address belongs to a user already. */
  claimEmail(email: string, userId: string): Promise<boolean> {
    return wrote(this.store.create<UserEmailItem>({ ...keys.userEmail(email), entity: 'user_email', user_id: userId }));
  }

  async releaseEmail(email: string, userId: string): Promise<void> {
    await wrote(this.store.delete(keys.userEmail(email), { expression: 'user_id = :user', values: { ':user': userId } }));
  }

  async create(user: NewUser): Promise<UserItem> {
    const item: UserItem = { ...keys.user(user.id), entity: 'user', ...user };
    await this.store.create(item);
    return item;
  }

  async remove(userId: string): Promise<void> {
    await this.store.delete(keys.user(userId));
  }

  /** The user once verified; undefined when there is no such user. */
  async markEmailVerified(userId: string, now: string): Promise<UserItem | undefined> {
    const write = this.store.update<UserItem>(keys.user(userId), {
      expression: 'SET email_verified = :yes, updated_at = :now',
      condition: 'attribute_exists(pk)',
      values: { ':yes': true, ':now': now },
    });
    return (await wrote(write)) ? write : undefined;
  }

  /**
   * Verifies an unverified address and removes the password chosen before it was verified, in one
   * conditional write: the user as it now is, or undefined when the address was verified already
   * (or there is no such user), in which case nothing changed. Of two racing claims one wins.
   */
  async claimUnverified(userId: string, now: string): Promise<UserItem | undefined> {
    const write = this.store.update<UserItem>(keys.user(userId), {
      expression: 'SET email_verified = :yes, updated_at = :now REMOVE password_hash',
      condition: 'attribute_exists(pk) AND email_verified = :no',
      values: { ':yes': true, ':no': false, ':now': now },
    });
    return (await wrote(write)) ? write : undefined;
  }

  /** Sets a new password, which also proves the address (it was read to get here); undefined when there is no such user. */
  async setPassword(userId: string, passwordHash: string, now: string): Promise<UserItem | undefined> {
    const write = this.store.update<UserItem>(keys.user(userId), {
      expression: 'SET password_hash = :hash, email_verified = :yes, updated_at = :now',
      condition: 'attribute_exists(pk)',
      values: { ':hash': passwordHash, ':yes': true, ':now': now },
    });
    return (await wrote(write)) ? write : undefined;
  }

  /** false when there is no such user. */
  setRole(userId: string, role: UserRole, now: string): Promise<boolean> {
    return wrote(
      this.store.update(keys.user(userId), {
        expression: 'SET #role = :role, updated_at = :now',
        condition: 'attribute_exists(pk)',
        names: { '#role': 'role' },
        values: { ':role': role, ':now': now },
      }),
    );
  }
}
