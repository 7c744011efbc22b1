import { describe, expect, it } from 'vitest';
import { csrfTokenMatches, csrfTokenOf } from '../../shared/auth/session-lookup';
import { clearedSessionCookie, cookieValue, SESSION_COOKIE, sessionCookie } from '../../shared/http/cookies';

const id = 'A'.repeat(43);

describe('the CSRF token', () => {
  it('is derived from the session id, differs per session and is checked exactly', () => {
    const other = 'B'.repeat(43);
    expect(csrfTokenOf(id)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(csrfTokenOf(id)).not.toBe(csrfTokenOf(other));
    expect(csrfTokenOf(id)).not.toContain(id);
    expect(csrfTokenMatches(id, csrfTokenOf(id))).toBe(true);
    expect(csrfTokenMatches(id, csrfTokenOf(other))).toBe(false);
    expect(csrfTokenMatches(id, undefined)).toBe(false);
    expect(csrfTokenMatches(id, '')).toBe(false);
  });
});

describe('the session cookie', () => {
  it('is HttpOnly, Secure, SameSite=Lax on the whole path, with its lifetime; cleared with Max-Age=0', () => {
    expect(sessionCookie(id, 1209599.996)).toBe(`__Host-postbox_session=${id}; HttpOnly; Secure; SameSite=Lax; Path=/; Max-Age=1209600`);
    expect(clearedSessionCookie()).toBe('__Host-postbox_session=; HttpOnly; Secure; SameSite=Lax; Path=/; Max-Age=0');
  });

  it('carries the __Host- prefix, with what browsers require of it: Secure, Path=/ and no Domain', () => {
    expect(SESSION_COOKIE).toBe('__Host-postbox_session');
    const attributes = sessionCookie(id, 60).split('; ').slice(1);
    expect(attributes).toContain('Secure');
    expect(attributes).toContain('Path=/');
    expect(attributes.some((a) => /^domain=/i.test(a))).toBe(false);
  });

  it('is not read under its old unprefixed name, which any subdomain could have planted', () => {
    expect(cookieValue(SESSION_COOKIE, [`postbox_session=${id}`], `postbox_session=${id}`)).toBeUndefined();
  });

  it('is read from API Gateway\'s cookies and from the Cookie header', () => {
    expect(cookieValue('__Host-postbox_session', ['a=1', `__Host-postbox_session=${id}`], undefined)).toBe(id);
    expect(cookieValue('__Host-postbox_session', undefined, `a=1; __Host-postbox_session=${id}; b=2`)).toBe(id);
    expect(cookieValue('__Host-postbox_session', ['x__Host-postbox_session=1'], '__Host-postbox_sessionx=2')).toBeUndefined();
    expect(cookieValue('__Host-postbox_session', undefined, undefined)).toBeUndefined();
  });
});
