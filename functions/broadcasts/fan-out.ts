// Fanout queue consumer: each record is one recipient chunk of a broadcast. A failed chunk is
// retried alone; a re-run sends and counts nothing twice.
import { fanOutChunk } from '../../shared/broadcasts/fan-out';
import { fanOutJob } from '../../shared/broadcasts/messages';
import { consume } from '../../shared/runtime/consume';

export const handler = consume('fanout', fanOutJob, async (job, { container: c }) => {
  const result = await fanOutChunk(c, job);
  if (result.kind === 'missing') c.logger.error('fanout job names no stored broadcast or chunk; dropped', { job });
  else if (result.kind === 'counted') c.logger.info('broadcast chunk sent', { job, ...result.tally, failures: result.failures });
  else c.logger.info('broadcast chunk counted before', { job });
});
