// The imports queue's payload: "carry on with this import". Where it carries on from is the
// import's stored progress, never the job, so a repeated or stale job does no work twice.
import * as z from 'zod';

export const importJob = z.object({
  account_id: z.string().min(1),
  import_id: z.string().min(1),
});

export type ImportJob = z.infer<typeof importJob>;
