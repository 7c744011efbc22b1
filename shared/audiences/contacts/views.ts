// Stored contacts and lists as their wire views, and the walks' budgets, shared by the use cases.
import type { WalkBudget } from '../../pagination';
import type { ContactListItem } from './lists-repository';
import type { ContactItem } from './repository';
import type { ContactView, ListView } from './schemas';

/**
 * A filtered walk of the account's contacts (a dynamic list's members, `q`) reads at most this
 * much per request: 8 queries of 250 contacts. A page cut short by it answers what it found and a
 * next_cursor that resumes the walk.
 */
export const CONTACT_WALK: WalkBudget = { pageSize: 250, pages: 8 };
/** A static list's members: memberships are read a page at a time and their contacts in one batch. */
export const MEMBER_WALK: WalkBudget = { pageSize: 100, pages: 8 };

export const toContactView = (item: ContactItem): ContactView => ({
  id: item.id,
  email: item.email,
  first_name: item.first_name ?? null,
  last_name: item.last_name ?? null,
  data: item.data ?? {},
  unsubscribed: item.unsubscribed,
  list_ids: [...(item.list_ids ?? [])].sort(),
  created_at: item.created_at,
  updated_at: item.updated_at,
});

export const toListView = (item: ContactListItem): ListView => ({
  id: item.id,
  name: item.name,
  type: item.type,
  filter: item.filter ?? null,
  member_count: Math.max(0, item.member_count),
  counted_at: item.type === 'dynamic' ? (item.counted_at ?? null) : null,
  created_at: item.created_at,
  updated_at: item.updated_at,
});

export const isLive = <T extends { deleted_at?: string }>(item: T | undefined): item is T => item !== undefined && item.deleted_at === undefined;
