// Who is staff: a role on a user, set by staff (the deployment's staff token or a staff session).
// Only a verified address may be made staff, so a stranger who signed up first with an operator's
// address cannot be promoted by mistake. A change ends the user's sessions: a session keeps the
// role it started with, so the new role holds from their next sign-in.
import type { Store } from '../db/store';
import { ApiError, NotFoundError } from '../errors';
import type { Clock } from '../ports/clock';
import { endAllSessions } from './sessions';
import { UserRepository } from './users-repository';
import type { SetUserRoleBody, UserRoleView } from './schemas';

export async function setUserRole(deps: { store: Store; clock: Clock }, body: SetUserRoleBody): Promise<UserRoleView> {
  const users = new UserRepository(deps.store);
  const user = await users.findByEmail(body.email);
  if (!user) throw new NotFoundError('user');
  if (body.role === 'staff' && !user.email_verified) {
    throw new ApiError('conflict', 'this user has not verified their address yet; staff must have a verified address');
  }
  if (user.role !== body.role) {
    if (!(await users.setRole(user.id, body.role, deps.clock.now().toISOString()))) throw new NotFoundError('user');
    await endAllSessions(deps, user.id);
  }
  return { user_id: user.id, email: user.email, role: body.role, account_id: user.account_id };
}
