// The admin function (functions/manifest.ts lists every area's): routes with
// their access rules, triggers, least-privilege `needs`, memory and timeout. Data only, never handler code.
import { defineFunction } from '../../shared/platform';
import { STAFF } from '../access';

export const admin = defineFunction({
  name: 'admin',
  entry: 'functions/admin/http.ts',
  handler: 'handler',
  http: [
    { method: 'POST', path: '/v1/admin/accounts', access: STAFF, summary: 'Create an account with its admin keys (staff token or staff session)' },
    { method: 'GET', path: '/v1/admin/accounts', access: STAFF, summary: 'List accounts, newest first; by status or email (staff token or staff session)' },
    { method: 'GET', path: '/v1/admin/accounts/{id}', access: STAFF, summary: 'One account (staff token or staff session)' },
    { method: 'POST', path: '/v1/admin/accounts/{id}/suspend', access: STAFF, summary: 'Suspend an account (staff token or staff session)' },
    { method: 'POST', path: '/v1/admin/accounts/{id}/unsuspend', access: STAFF, summary: 'Lift a suspension (staff token or staff session)' },
    { method: 'POST', path: '/v1/admin/users/role', access: STAFF, summary: 'Make a signed-up user staff, or an owner again (staff token or staff session)' },
    { method: 'GET', path: '/v1/admin/audit', access: STAFF, summary: 'The staff audit log, newest first (staff token or staff session)' },
    // Sending reputation (issue 32): the deployment's accounts by bounce and complaint rate, and the lift of a pause.
    { method: 'GET', path: '/v1/admin/reputation', access: STAFF, summary: 'Accounts by bounce and complaint rate over the last 7 days (staff token or staff session)' },
    { method: 'POST', path: '/v1/admin/accounts/{id}/reputation/lift', access: STAFF, summary: 'Lift a reputation warning or pause (staff token or staff session)' },
    { method: 'GET', path: '/v1/admin/dead-letters', access: STAFF, summary: "Each queue's DLQ: depth, messages and why they failed (staff token or staff session)" },
    { method: 'POST', path: '/v1/admin/dead-letters/{queue}/redrive', access: STAFF, summary: 'Put DLQ messages back on their queue, some or all (staff token or staff session)' },
  ],
  // deadLetters: the dead-letter routes look at and redrive every DLQ.
  needs: { table: 'readwrite', secrets: ['staff-token', 'cursor-signing-key'], deadLetters: true },
  memoryMb: 512,
  timeoutSeconds: 10,
});
