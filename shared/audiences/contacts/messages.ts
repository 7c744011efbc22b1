// The job a long list delete leaves on the imports queue (the contacts area's background work):
// "carry on removing this deleted list". Where it carries on from is the list's remaining
// memberships, never the job, so a repeated job does nothing twice.
import * as z from 'zod';

export const listRemovalJob = z.object({
  account_id: z.string().min(1),
  list_id: z.string().min(1),
});

export type ListRemovalJob = z.infer<typeof listRemovalJob>;
