// The ses-events function (functions/manifest.ts lists every area's): routes with
// their access rules, triggers, least-privilege `needs`, memory and timeout. Data only, never handler code.
import { defineFunction } from '../../shared/platform';

export const sesEvents = defineFunction({
  name: 'ses-events',
  entry: 'functions/events/ingest-ses-event.ts',
  handler: 'handler',
  queue: 'ses-events',
  // send: a reputation alert (shared/billing/reputation) is mailed by the send worker.
  needs: { table: 'readwrite', sendTo: ['webhooks', 'send'], reputation: true },
  memoryMb: 512,
  timeoutSeconds: 30,
});
