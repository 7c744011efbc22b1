import * as z from 'zod';
import { scopes, type Scope } from '../../platform';

export const scopeSchema = z.enum(scopes);

export const createKeyBody = z
  .object({
    scope: scopeSchema.optional(),
    test_mode: z.boolean().optional(),
    name: z.string().trim().min(1).max(100).optional(),
  })
  .strict();

export type CreateKeyBody = z.infer<typeof createKeyBody>;

/** List form: never holds the secret or its hash. */
export const apiKeyView = z
  .object({
    id: z.string(),
    key_prefix: z.string().meta({ description: 'The first characters of the secret, to tell keys apart' }),
    scope: scopeSchema,
    name: z.string(),
    is_revoked: z.boolean(),
    test_mode: z.boolean(),
    last_used_at: z.string().nullable().meta({ description: 'Written at most once a minute per key' }),
    request_count: z.number().int(),
    created_at: z.string(),
  })
  .strict();
export type ApiKeyView = z.infer<typeof apiKeyView>;

/** A new or rotated key: the only answer that holds its secret. */
export const createdApiKeyView = z
  .object({
    id: z.string(),
    key: z.string().meta({ description: 'The secret, shown once: store it now' }),
    key_prefix: z.string(),
    scope: scopeSchema,
    name: z.string(),
    test_mode: z.boolean(),
    created_at: z.string(),
  })
  .strict();
export type CreatedApiKeyView = z.infer<typeof createdApiKeyView>;
