// The dynamic-list matcher (shared/audiences/contacts/filter.ts): each op, each kind of field, numbers
// against strings, created_at as instants, absent fields, all/any; and the `q` prefix match.
import { describe, expect, it } from 'vitest';
import { matchesCondition, matchesFilter, matchesPrefix, type MatchableContact } from '../../shared/audiences/contacts/filter';
import { listFilter, type FilterCondition } from '../../shared/audiences/contacts/schemas';

const ada: MatchableContact = {
  email: 'ada.lovelace@example.com',
  first_name: 'Ada',
  last_name: null,
  created_at: '2026-03-01T12:00:00.000Z',
  data: { plan: 'Pro', seats: 12, beta: true, zip: '02139', score: 0 },
};

const is = (field: string, op: FilterCondition['op'], value?: string | number | boolean): boolean =>
  matchesCondition(ada, { field, op, ...(value === undefined ? {} : { value }) });

describe('text fields and ops', () => {
  it('eq and neq ignore case', () => {
    expect(is('email', 'eq', 'ADA.LOVELACE@example.com')).toBe(true);
    expect(is('first_name', 'eq', 'ada')).toBe(true);
    expect(is('first_name', 'eq', 'Adah')).toBe(false);
    expect(is('first_name', 'neq', 'ADA')).toBe(false);
    expect(is('first_name', 'neq', 'Bob')).toBe(true);
  });

  it('contains, starts_with and ends_with ignore case', () => {
    expect(is('email', 'contains', 'LOVE')).toBe(true);
    expect(is('email', 'contains', 'hate')).toBe(false);
    expect(is('email', 'starts_with', 'Ada.')).toBe(true);
    expect(is('email', 'starts_with', 'lovelace')).toBe(false);
    expect(is('email', 'ends_with', '@EXAMPLE.com')).toBe(true);
    expect(is('email', 'ends_with', '@example.org')).toBe(false);
    expect(is('data.plan', 'starts_with', 'pr')).toBe(true);
  });

  it('exists and not_exists: a null or empty name is absent; neq matches an absent field, other ops do not', () => {
    expect(is('first_name', 'exists')).toBe(true);
    expect(is('last_name', 'exists')).toBe(false);
    expect(is('last_name', 'not_exists')).toBe(true);
    expect(matchesCondition({ ...ada, first_name: '' }, { field: 'first_name', op: 'exists' })).toBe(false);
    expect(is('last_name', 'neq', 'Byron')).toBe(true);
    expect(is('last_name', 'eq', 'Byron')).toBe(false);
    expect(is('last_name', 'contains', 'B')).toBe(false);
    expect(is('data.missing', 'exists')).toBe(false);
    expect(is('data.missing', 'not_exists')).toBe(true);
    expect(is('data.missing', 'neq', 'x')).toBe(true);
    expect(is('data.missing', 'gt', 1)).toBe(false);
    expect(is('data.score', 'exists')).toBe(true); // 0 is a value
    expect(is('created_at', 'exists')).toBe(true);
  });

  it('a data key named like an Object property is absent unless the contact has it', () => {
    expect(is('data.constructor', 'exists')).toBe(false);
    expect(is('data.toString', 'eq', 'x')).toBe(false);
  });
});

describe('numbers, booleans and strings', () => {
  it('gt and lt compare numbers only', () => {
    expect(is('data.seats', 'gt', 10)).toBe(true);
    expect(is('data.seats', 'gt', 12)).toBe(false);
    expect(is('data.seats', 'lt', 12.5)).toBe(true);
    expect(is('data.seats', 'lt', -1)).toBe(false);
    // A numeric string is a string: no order against a number.
    expect(is('data.zip', 'gt', 100)).toBe(false);
    expect(is('data.zip', 'lt', 100000)).toBe(false);
    expect(is('data.plan', 'gt', 1)).toBe(false);
  });

  it('a number never equals a string, nor a boolean a string', () => {
    expect(is('data.seats', 'eq', 12)).toBe(true);
    expect(is('data.seats', 'eq', '12')).toBe(false);
    expect(is('data.seats', 'neq', '12')).toBe(true);
    expect(is('data.zip', 'eq', 2139)).toBe(false);
    expect(is('data.zip', 'eq', '02139')).toBe(true);
    expect(is('data.beta', 'eq', true)).toBe(true);
    expect(is('data.beta', 'eq', 'true')).toBe(false);
    expect(is('data.beta', 'neq', false)).toBe(true);
    expect(is('data.score', 'eq', false)).toBe(false);
  });

  it('text ops match strings only', () => {
    expect(is('data.seats', 'contains', '1')).toBe(false);
    expect(is('data.beta', 'starts_with', 't')).toBe(false);
  });
});

describe('created_at', () => {
  it('compares as an instant, whatever the timestamp’s offset or precision', () => {
    expect(is('created_at', 'gt', '2026-03-01T11:59:59.999Z')).toBe(true);
    expect(is('created_at', 'gt', '2026-03-01T12:00:00Z')).toBe(false);
    expect(is('created_at', 'lt', '2026-03-01T14:00:01+02:00')).toBe(true);
    expect(is('created_at', 'lt', '2026-03-01T13:00:00+02:00')).toBe(false);
    expect(is('created_at', 'eq', '2026-03-01T13:00:00+01:00')).toBe(true);
    expect(is('created_at', 'neq', '2026-03-01T13:00:00+01:00')).toBe(false);
    expect(is('created_at', 'gt', 'not a date')).toBe(false);
  });
});

describe('filters', () => {
  const cond = (field: string, op: FilterCondition['op'], value?: string | number | boolean): FilterCondition => ({ field, op, ...(value === undefined ? {} : { value }) });

  it('all needs every condition, any needs one', () => {
    const conditions = [cond('data.plan', 'eq', 'pro'), cond('data.seats', 'gt', 100)];
    expect(matchesFilter(ada, { match: 'all', conditions })).toBe(false);
    expect(matchesFilter(ada, { match: 'any', conditions })).toBe(true);
    expect(matchesFilter(ada, { match: 'all', conditions: [conditions[0]!, cond('email', 'ends_with', '@example.com')] })).toBe(true);
    expect(matchesFilter(ada, { match: 'any', conditions: [cond('data.seats', 'gt', 100), cond('last_name', 'exists')] })).toBe(false);
  });

  it('the schema refuses what the matcher could not answer, naming the condition', () => {
    const bad = listFilter.safeParse({ match: 'all', conditions: [cond('email', 'eq', 'a'), { field: 'email', op: 'eq' }] });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.path).toEqual(['conditions', 1, 'value']);
    expect(listFilter.safeParse({ match: 'all', conditions: [cond('data.seats', 'lt', 3), cond('created_at', 'gt', '2026-01-01T00:00:00Z')] }).success).toBe(true);
    expect(listFilter.safeParse({ match: 'all', conditions: [cond('data.a.b', 'exists')] }).success).toBe(false);
  });
});

describe('matchesPrefix (q)', () => {
  it('matches a prefix of the email, first or last name, regardless of case', () => {
    expect(matchesPrefix(ada, 'ADA.')).toBe(true);
    expect(matchesPrefix(ada, ' ad')).toBe(true);
    expect(matchesPrefix({ ...ada, last_name: 'Byron' }, 'by')).toBe(true);
    expect(matchesPrefix(ada, 'lovelace')).toBe(false);
    expect(matchesPrefix(ada, 'example')).toBe(false);
  });
});
