import { describe, expect, it } from 'vitest';
import { csrfTokenMatches, csrfTokenOf } from '../../shared/auth/session-lookup';
import { clearedSessionCookie, cookieValue, sessionCookie } from '../../shared/http/cookies';

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
    expect(sessionCookie(id, 1209599.996)).toBe(`postbox_session=${id}; HttpOnly; Secure; SameSite=Lax; Path=/; Max-Age=1209600`);
    expect(clearedSessionCookie()).toBe('postbox_session=; HttpOnly; Secure; SameSite=Lax; Path=/; Max-Age=0');
  });

  it('is read from API Gateway\'s cookies and from the Cookie header', () => {
    expect(cookieValue('postbox_session', ['a=1', `postbox_session=${id}`], undefined)).toBe(id);
    expect(cookieValue('postbox_session', undefined, `a=1; postbox_session=${id}; b=2`)).toBe(id);
    expect(cookieValue('postbox_session', ['xpostbox_session=1'], 'postbox_sessionx=2')).toBeUndefined();
    expect(cookieValue('postbox_session', undefined, undefined)).toBeUndefined();
  });
});
