import * as z from 'zod';
import { apiKeyView, createdApiKeyView, createKeyBody } from '../../shared/accounts/api-keys/schemas';
import { listOf, pageQuery, type ContractsOf } from '../../shared/http/contract';
import type { keys } from './definition';

const keyId = z.object({ id: z.string().meta({ description: 'The key id, key_…' }) });

export const contracts: ContractsOf<typeof keys> = {
  'GET /v1/keys': {
    operationId: 'listKeys',
    query: pageQuery,
    paginated: true,
    responses: { 200: { description: "The account's keys, newest first; never a secret", schema: listOf('keys', apiKeyView) } },
    errors: [],
    examples: [
      { name: 'first page', status: 200 },
      { name: 'two a page', query: { limit: '2' }, status: 200 },
      { name: 'a cursor from elsewhere', query: { cursor: 'not-a-cursor' }, status: 400 },
    ],
  },
  'POST /v1/keys': {
    operationId: 'createKey',
    description: 'The secret is in this answer only. A test-mode key can only create test-mode keys.',
    body: createKeyBody,
    responses: { 201: { description: 'The new key with its secret', schema: createdApiKeyView, secret: true } },
    errors: ['conflict'],
    examples: [
      { name: 'a send key', body: { scope: 'send', name: 'billing service' }, status: 201 },
      { name: 'an unknown scope', body: { scope: 'everything' }, status: 400 },
    ],
  },
  'POST /v1/keys/{id}/rotate': {
    operationId: 'rotateKey',
    description: 'A new secret for the same key id; the old secret stops working.',
    params: keyId,
    responses: { 200: { description: 'The key with its new secret', schema: createdApiKeyView, secret: true } },
    errors: ['conflict'],
    examples: [
      { name: 'rotate', params: { id: '{{spare_key_id}}' }, status: 200 },
      { name: 'no such key', params: { id: 'key_missing' }, status: 404 },
    ],
  },
  'DELETE /v1/keys/{id}': {
    operationId: 'revokeKey',
    params: keyId,
    responses: { 204: { description: 'Revoked for good' } },
    errors: [],
    examples: [
      { name: 'revoke', params: { id: '{{spare_key_id}}' }, status: 204 },
      { name: 'no such key', params: { id: 'key_missing' }, status: 404 },
    ],
  },
};
