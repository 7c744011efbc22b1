// Imports queue consumer, the contacts area's background work: a record says "carry on with this
// contact import" (the import's stored progress says from where; a failed run is retried from its
// last finished chunk) or "carry on removing this deleted list" (its remaining memberships say what).
import * as z from 'zod';
import { continueListDelete } from '../../shared/audiences/contacts/lists';
import { listRemovalJob } from '../../shared/audiences/contacts/messages';
import { importJob } from '../../shared/audiences/imports/messages';
import { giveUpImport, runImportJob } from '../../shared/audiences/imports/run';
import { contactImportTarget } from '../../shared/audiences/imports/contacts-target';
import { consume } from '../../shared/runtime/consume';

export const handler = consume('imports', z.union([importJob, listRemovalJob]), async (job, { container: c, finalAttempt }) => {
  if (!('import_id' in job)) {
    c.logger.info('list removal job done', { job, result: await continueListDelete(c, job) });
    return;
  }
  try {
    const result = await runImportJob(c, contactImportTarget(c), job);
    if (result.kind === 'missing') c.logger.error('imports job names no stored import; dropped', { job });
    else if (result.kind === 'failed') c.logger.info('contact import failed', { job, errors: result.errors });
    else c.logger.info('contact import job done', { job, result: result.kind });
  } catch (error) {
    if (finalAttempt) await giveUpImport(c, job, error instanceof Error ? error.name : 'unknown error');
    throw error;
  }
});
