// The error-body checks handler tests share: every refusal is `{error:{code,message,status}}`.
import { expect } from 'vitest';

/** The answer is the error `code` with the HTTP `status` (and a message matching `message`, if given). */
export function expectError(res: { status: number; body: any }, status: number, code: string, message?: RegExp): void {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body.error).toMatchObject({ code, status });
  if (message) expect(res.body.error.message).toMatch(message);
}

/** A 400 invalid_request whose message names `field` first (`body.name: …`). */
export function expectInvalid(res: { status: number; body: any }, field: string): void {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body.error).toMatchObject({ code: 'invalid_request', status: 400 });
  expect(res.body.error.message.startsWith(`${field}:`), res.body.error.message).toBe(true);
}
