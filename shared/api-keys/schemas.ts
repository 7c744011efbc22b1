import * as z from 'zod';
import { scopes, type Scope } from '../platform';

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
export interface ApiKeyView {
  id: string;
  key_prefix: string;
  scope: Scope;
  name: string;
  is_revoked: boolean;
  test_mode: boolean;
  last_used_at: string | null;
  request_count: number;
  created_at: string;
}

export interface CreatedApiKeyView {
  id: string;
  key: string;
  key_prefix: string;
  scope: Scope;
  name: string;
  test_mode: boolean;
  created_at: string;
}
