// The mail function (functions/manifest.ts lists every area's): routes with
// their access rules, triggers, least-privilege `needs`, memory and timeout. Data only, never handler code.
import { defineFunction } from '../../shared/platform';
import { ANY_KEY, SEND, SEND_LIVE } from '../access';

export const mail = defineFunction({
  // The Mail app (issue 17): inboxes, threads, folders, stars, read state, labels. Deployment-gated
  // like the inbound routes (404 unless INBOUND_ENABLED). Writes take send (or admin) keys, reads any key.
  name: 'mail',
  entry: 'functions/mail/http.ts',
  handler: 'handler',
  http: [
    { method: 'GET', path: '/v1/mail/inboxes', access: ANY_KEY, summary: 'List Mail inboxes, newest first' },
    { method: 'POST', path: '/v1/mail/inboxes', access: SEND_LIVE, summary: 'Create an inbox for an address on an inbound-enabled domain' },
    { method: 'DELETE', path: '/v1/mail/inboxes/{id}', access: SEND_LIVE, summary: 'Delete an inbox; its mail stays, detached from it' },
    { method: 'GET', path: '/v1/mail/threads', access: ANY_KEY, summary: 'List threads of a folder, newest message first' },
    { method: 'GET', path: '/v1/mail/threads/{id}', access: ANY_KEY, summary: 'A thread with its messages, oldest first; marks it read' },
    { method: 'GET', path: '/v1/mail/search', access: ANY_KEY, summary: 'Search mail (words, "phrases", from:, to:, subject:, has:attachment, after:, before:), newest first' },
    { method: 'GET', path: '/v1/mail/export', access: ANY_KEY, summary: 'Export mail as JSON or mbox, a page at a time (same filters as threads)' },
    { method: 'PUT', path: '/v1/mail/threads/{id}/read', access: SEND, summary: 'Mark a thread read or unread' },
    { method: 'PUT', path: '/v1/mail/threads/{id}/star', access: SEND, summary: 'Star or unstar a thread' },
    { method: 'PUT', path: '/v1/mail/threads/{id}/folder', access: SEND, summary: 'Move a thread to inbox, archive, trash or spam' },
    { method: 'PUT', path: '/v1/mail/threads/{id}/labels', access: SEND, summary: 'Add or remove labels of a thread, by name' },
    { method: 'PUT', path: '/v1/mail/messages/{source}/{id}/star', access: SEND, summary: 'Star or unstar one message (source inbound or outbound)' },
    { method: 'GET', path: '/v1/mail/labels', access: ANY_KEY, summary: 'List labels, ordered by name' },
    { method: 'POST', path: '/v1/mail/labels', access: SEND, summary: 'Create a label (name unique without regard to case, hex colour)' },
    { method: 'DELETE', path: '/v1/mail/labels/{id}', access: SEND, summary: 'Delete a label; it leaves every thread' },
  ],
  // The bucket: a thread's large content and the raw messages an export serves are read from it.
  needs: { table: 'readwrite', secrets: ['cursor-signing-key'], bucket: 'read' },
  memoryMb: 512,
  timeoutSeconds: 10,
});
