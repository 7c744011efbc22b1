// matchRoute: the longest prefix of the recipient's local part wins, "" is the catch-all, only
// active routes of the recipient's domain count, case is ignored, ties go to the oldest route.
import { describe, expect, it } from 'vitest';
import { matchRoute } from '../../shared/inbound-mail/routes/match';

const route = (id: string, match_prefix: string, extra: { domain?: string; active?: boolean } = {}) => ({ id, domain: extra.domain ?? 'acme.test', match_prefix, active: extra.active ?? true });

describe('matchRoute', () => {
  const routes = [route('inr_1', ''), route('inr_2', 'support'), route('inr_3', 'support-eu'), route('inr_4', 'sales', { active: false }), route('inr_5', 'billing', { domain: 'other.test' })];

  it('takes the longest matching prefix', () => {
    expect(matchRoute(routes, 'support-eu-1@acme.test')?.id).toBe('inr_3');
    expect(matchRoute(routes, 'support@acme.test')?.id).toBe('inr_2');
    expect(matchRoute(routes, 'supporter@acme.test')?.id).toBe('inr_2');
  });

  it('falls back to the catch-all, and to nothing without one', () => {
    expect(matchRoute(routes, 'hello@acme.test')?.id).toBe('inr_1');
    expect(matchRoute(routes.slice(1), 'hello@acme.test')).toBeUndefined();
  });

  it('skips inactive routes and other domains', () => {
    expect(matchRoute(routes, 'sales@acme.test')?.id).toBe('inr_1');
    expect(matchRoute(routes, 'billing@acme.test')?.id).toBe('inr_1');
    expect(matchRoute(routes, 'billing@other.test')?.id).toBe('inr_5');
    expect(matchRoute(routes, 'billing@sub.acme.test')).toBeUndefined();
    expect(matchRoute([route('inr_1', '', { active: false })], 'x@acme.test')).toBeUndefined();
  });

  it('ignores case on both sides and a trailing dot on the domain', () => {
    expect(matchRoute([route('inr_1', 'Support')], 'SUPPORT@Acme.Test.')?.id).toBe('inr_1');
  });

  it('takes the oldest of equal prefixes, whatever the order given', () => {
    expect(matchRoute([route('inr_9', 'a'), route('inr_2', 'a')], 'ab@acme.test')?.id).toBe('inr_2');
  });

  it('matches nothing for a recipient that is not an address', () => {
    expect(matchRoute(routes, 'acme.test')).toBeUndefined();
    expect(matchRoute(routes, '@acme.test')).toBeUndefined();
    expect(matchRoute([], 'a@acme.test')).toBeUndefined();
  });
});
