// The dynamic-list matcher: whether a contact satisfies a list's filter. Pure, so the members
// route and a broadcast's fan-out decide membership the same way, from the contact as it is now.
//
// Rules (docs/api-decisions.md, "Contacts and lists"):
// - text ops (eq, neq, contains, starts_with, ends_with) compare strings regardless of case;
// - a number compares only with a number and a boolean only with a boolean: "10" is not eq 10,
//   and gt/lt match only numbers (never strings, whose order would be lexical);
// - created_at compares as an instant (the value is any RFC 3339 timestamp), to the millisecond;
// - a field is absent when it is missing, null or (for names) empty: exists and not_exists test that;
//   neq matches an absent field (it is not equal), every other op does not.
import type { FilterCondition, ListFilter } from './schemas';

export type DataValue = string | number | boolean;

/** What the matcher reads of a contact. */
export interface MatchableContact {
  email: string;
  first_name: string | null;
  last_name: string | null;
  created_at: string;
  data: Record<string, DataValue>;
}

function fieldValue(contact: MatchableContact, field: string): DataValue | undefined {
  if (field.startsWith('data.')) {
    const key = field.slice('data.'.length);
    return Object.prototype.hasOwnProperty.call(contact.data, key) ? contact.data[key] : undefined;
  }
  switch (field) {
    case 'email':
      return contact.email;
    case 'first_name':
      return contact.first_name || undefined;
    case 'last_name':
      return contact.last_name || undefined;
    case 'created_at':
      return contact.created_at;
    default:
      return undefined;
  }
}

function equal(field: string, actual: DataValue, expected: DataValue): boolean {
  if (field === 'created_at') return typeof expected === 'string' && Date.parse(String(actual)) === Date.parse(expected);
  if (typeof actual === 'string' && typeof expected === 'string') return actual.toLowerCase() === expected.toLowerCase();
  return typeof actual === typeof expected && actual === expected;
}

function ordered(field: string, actual: DataValue, expected: DataValue): number | undefined {
  if (field === 'created_at') {
    const a = Date.parse(String(actual));
    const b = typeof expected === 'string' ? Date.parse(expected) : Number.NaN;
    return Number.isNaN(a) || Number.isNaN(b) ? undefined : a - b;
  }
  if (typeof actual === 'number' && typeof expected === 'number') return actual - expected;
  return undefined;
}

function text(actual: DataValue, expected: DataValue | undefined): [string, string] | undefined {
  if (typeof actual !== 'string' || typeof expected !== 'string') return undefined;
  return [actual.toLowerCase(), expected.toLowerCase()];
}

export function matchesCondition(contact: MatchableContact, condition: FilterCondition): boolean {
  const actual = fieldValue(contact, condition.field);
  const expected = condition.value;
  if (condition.op === 'exists') return actual !== undefined;
  if (condition.op === 'not_exists') return actual === undefined;
  if (actual === undefined || expected === undefined) return condition.op === 'neq' && expected !== undefined;
  switch (condition.op) {
    case 'eq':
      return equal(condition.field, actual, expected);
    case 'neq':
      return !equal(condition.field, actual, expected);
    case 'contains': {
      const pair = text(actual, expected);
      return pair !== undefined && pair[0].includes(pair[1]);
    }
    case 'starts_with': {
      const pair = text(actual, expected);
      return pair !== undefined && pair[0].startsWith(pair[1]);
    }
    case 'ends_with': {
      const pair = text(actual, expected);
      return pair !== undefined && pair[0].endsWith(pair[1]);
    }
    case 'gt': {
      const order = ordered(condition.field, actual, expected);
      return order !== undefined && order > 0;
    }
    case 'lt': {
      const order = ordered(condition.field, actual, expected);
      return order !== undefined && order < 0;
    }
  }
}

/** Whether the contact is in a dynamic list with this filter. */
export function matchesFilter(contact: MatchableContact, filter: ListFilter): boolean {
  return filter.match === 'all'
    ? filter.conditions.every((c) => matchesCondition(contact, c))
    : filter.conditions.some((c) => matchesCondition(contact, c));
}

/** `q` of GET /v1/contacts: a prefix of the email, first name or last name, regardless of case. */
export function matchesPrefix(contact: MatchableContact, q: string): boolean {
  const prefix = q.trim().toLowerCase();
  return [contact.email, contact.first_name, contact.last_name].some((v) => typeof v === 'string' && v.toLowerCase().startsWith(prefix));
}
