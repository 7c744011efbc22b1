// The acceptance sweep, every minute: writes the timeline event of a suppressed send whose request
// was killed before it could, and resolves idempotency claims of the earlier design
// (shared/sending/messages/recovery.ts).
import { recoverAcceptances } from '../../shared/sending/messages/recovery';
import { every } from '../../shared/runtime/every';

export const handler = every('acceptance-sweep', async (c) => {
  const result = await recoverAcceptances(c);
  c.logger.debug('acceptance sweep done', { ...result });
});
