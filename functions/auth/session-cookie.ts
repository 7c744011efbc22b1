// The session cookie of a session just started, for every route that signs a person in.
import type { StartedSession } from '../../shared/auth/sessions';
import { sessionCookie } from '../../shared/http/cookies';
import type { Container } from '../../shared/runtime/container';

/** The cookie lives as long as the session: its Max-Age counts from now. */
export function startedSessionCookie(c: Pick<Container, 'clock'>, started: StartedSession): string {
  return sessionCookie(started.id, (started.expiresAt.getTime() - c.clock.now().getTime()) / 1000);
}
