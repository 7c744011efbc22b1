// Fanout queue consumer. Each record is one job of a broadcast: a recipient chunk to send (a failed
// chunk is retried alone; a re-run sends and counts nothing twice), a start to hand on (the
// scheduler's at scheduled_at, or an API start's safety net), or a page of a list audience to walk.
// A job whose last receive fails too fails its broadcast with why, then goes to the DLQ.
import { walkPage } from '../../shared/audiences/broadcasts/audience';
import { fanOutChunk, failOnLastAttempt } from '../../shared/audiences/broadcasts/fan-out';
import { broadcastJob } from '../../shared/audiences/broadcasts/messages';
import { runStart } from '../../shared/audiences/broadcasts/start';
import { consume } from '../../shared/runtime/consume';

export const handler = consume('fanout', broadcastJob, async (job, { container: c, finalAttempt }) =>
  failOnLastAttempt(c, job, finalAttempt, async () => {
    if ('chunk' in job) {
      const result = await fanOutChunk(c, job);
      if (result.kind === 'missing') c.logger.error('fanout job names no stored broadcast or chunk; dropped', { job });
      else if (result.kind === 'counted') c.logger.info('broadcast chunk sent', { job, ...result.tally, failures: result.failures });
      else if (result.kind === 'stopped') c.logger.info('broadcast chunk not sent: the broadcast stopped', { job, status: result.status });
      else c.logger.info('broadcast chunk counted before', { job });
    } else if ('start' in job) {
      const result = await runStart(c, job);
      c.logger.info('broadcast start', { job, ...result });
    } else {
      const result = await walkPage(c, job);
      if (result.kind === 'missing') c.logger.error('walk job names no stored list broadcast; dropped', { job });
      else c.logger.info('broadcast audience page', { job, ...result });
    }
  }),
);
