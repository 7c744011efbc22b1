// Imports queue consumer: each record says "carry on with this contact import"; the import's
// stored progress says from where. A failed run is retried from its last finished chunk.
import { importJob } from '../../shared/imports/messages';
import { giveUpImport, runImportJob } from '../../shared/imports/run';
import { contactImportTarget } from '../../shared/imports/contacts-target';
import { consume } from '../../shared/runtime/consume';

export const handler = consume('imports', importJob, async (job, { container: c, finalAttempt }) => {
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
