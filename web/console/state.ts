// What the console holds between views: the signed-in session (GET /v1/auth/session's answer, null
// signed out) and the view shown.
import type { Ok } from '../../client/src/index';

export type Session = Ok<'/v1/auth/session', 'get'>;

export const state: { session: Session | null; view: string } = { session: null, view: '' };

/** The signed-in session; a view that runs only signed in may count on it. */
export function session(): Session {
  if (!state.session) throw new Error('not signed in');
  return state.session;
}
