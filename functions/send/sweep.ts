// The acceptance sweep, every minute: a send request killed between claiming its idempotency keys
// and handing its messages on leaves pending claims; this finishes or releases them.
import { recoverAcceptances } from '../../shared/messages/recovery';
import { every } from '../../shared/runtime/every';

export const handler = every('acceptance-sweep', async (c) => {
  const result = await recoverAcceptances(c);
  c.logger.debug('acceptance sweep done', { ...result });
});
