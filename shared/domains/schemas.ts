import * as z from 'zod';

export const createDomainBody = z.object({ domain: z.string().min(1).max(253) }).strict();

export const fromNameBody = z
  .object({
    // Empty clears it. No line breaks or angle brackets: it becomes part of a header.
    from_name: z.string().max(100).regex(/^[^\r\n<>]*$/, 'no line breaks or angle brackets'),
  })
  .strict();
