// The queue consumers as the tests run them: each under its manifest needs (underNeeds), as call()
// runs the HTTP routes, so a consumer reaching past its grants fails here as it would in AWS.
import { handler as fanOutRaw } from '../../functions/broadcasts/fan-out';
import { handler as ingestSesEventRaw } from '../../functions/events/ingest-ses-event';
import { handler as sendWorkerRaw } from '../../functions/send/send-message';
import { handler as deliverWebhookRaw } from '../../functions/webhooks/deliver-webhook';
import { underNeeds } from './grants';

export const sendWorker = underNeeds('functions/send/send-message.ts', sendWorkerRaw);
export const fanOut = underNeeds('functions/broadcasts/fan-out.ts', fanOutRaw);
export const ingestSesEvent = underNeeds('functions/events/ingest-ses-event.ts', ingestSesEventRaw);
export const deliverWebhook = underNeeds('functions/webhooks/deliver-webhook.ts', deliverWebhookRaw);
