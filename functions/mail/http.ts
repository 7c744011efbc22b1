// The Mail app's API: inboxes, threads (list, detail, read state, stars, folder, labels), message
// stars and labels, search and export (sending is functions/mail-send/http.ts). Every route is deployment-gated: 404 where inbound email is off.
import { authOf, createHttpHandler, type RouteHandler } from '../../shared/http/pipeline';
import { listed, listing, pageOf } from '../../shared/http/lists';
import { json, noContent } from '../../shared/http/respond';
import type { HttpResult } from '../../shared/http/types';
import { parseInput } from '../../shared/http/validate';
import { inboundOnly } from '../../shared/http/inbound-gate';
import { createInbox, deleteInbox, listInboxes } from '../../shared/inbound-mail/mailbox/inboxes';
import { createLabel, deleteLabel, listLabels } from '../../shared/inbound-mail/mailbox/labels';
import { createInboxBody, createLabelBody, folderBody, labelsBody, readBody, starBody, threadListQuery } from '../../shared/inbound-mail/mailbox/schemas';
import { listThreads, readThread, setFolder, setLabels, setMessageStarred, setRead, setThreadStarred } from '../../shared/inbound-mail/mailbox/threads';
import { exportMail, type ExportPage } from '../../shared/inbound-mail/mailbox/export';
import { exportQuery, searchQuery } from '../../shared/inbound-mail/mailbox/search-schemas';
import { searchMail } from '../../shared/inbound-mail/mailbox/search-service';
import { functionNamed } from '../manifest';
import { mail } from './definition';

/** A page of an export: the Export document, or mbox text with the next page's cursor in a header. */
const exported = (page: ExportPage): HttpResult => {
  if (!page.mbox) return json(200, { exported_at: page.exported_at, count: page.messages.length, messages: page.messages, next_cursor: page.nextCursor });
  const headers: Record<string, string> = { 'content-type': 'application/mbox', 'content-disposition': 'attachment; filename="mail-export.mbox"' };
  if (page.nextCursor) headers['postbox-next-cursor'] = page.nextCursor;
  return { status: 200, body: page.mbox, headers };
};

const routes = {
  'GET /v1/mail/inboxes': async (req, c) => json(200, { inboxes: await listInboxes(c.store, authOf(req).accountId) }),
  'POST /v1/mail/inboxes': async (req, c) => json(201, await createInbox(c, authOf(req).accountId, parseInput(createInboxBody, req.body))),
  'DELETE /v1/mail/inboxes/{id}': async (req, c) => {
    await deleteInbox(c.store, authOf(req).accountId, req.params.id ?? '');
    return noContent();
  },
  'GET /v1/mail/threads': async (req, c) => {
    const query = parseInput(threadListQuery, req.query, 'query');
    return listed('threads', await listThreads(listing(c), authOf(req).accountId, query, pageOf(req)));
  },
  'GET /v1/mail/threads/{id}': async (req, c) => json(200, await readThread(c, authOf(req).accountId, req.params.id ?? '')),
  'GET /v1/mail/search': async (req, c) => json(200, { results: await searchMail(c.store, authOf(req).accountId, parseInput(searchQuery, req.query, 'query')) }),
  'GET /v1/mail/export': async (req, c) => exported(await exportMail({ ...listing(c), objects: c.objects, clock: c.clock }, authOf(req).accountId, parseInput(exportQuery, req.query, 'query'))),
  'PUT /v1/mail/threads/{id}/read': async (req, c) => {
    const { read = true } = parseInput(readBody, req.body ?? {});
    return json(200, await setRead(c.store, authOf(req).accountId, req.params.id ?? '', read));
  },
  'PUT /v1/mail/threads/{id}/star': async (req, c) => {
    const { starred = true } = parseInput(starBody, req.body ?? {});
    return json(200, await setThreadStarred(c.store, authOf(req).accountId, req.params.id ?? '', starred));
  },
  'PUT /v1/mail/threads/{id}/folder': async (req, c) => {
    const { folder } = parseInput(folderBody, req.body);
    return json(200, await setFolder(c.store, authOf(req).accountId, req.params.id ?? '', folder));
  },
  'PUT /v1/mail/threads/{id}/labels': async (req, c) =>
    json(200, await setLabels(c.store, authOf(req).accountId, req.params.id ?? '', parseInput(labelsBody, req.body ?? {}))),
  'PUT /v1/mail/messages/{source}/{id}/star': async (req, c) => {
    const { starred = true } = parseInput(starBody, req.body ?? {});
    return json(200, await setMessageStarred(c.store, authOf(req).accountId, req.params.source ?? '', req.params.id ?? '', starred));
  },
  'GET /v1/mail/labels': async (req, c) => json(200, { labels: await listLabels(c.store, authOf(req).accountId) }),
  'POST /v1/mail/labels': async (req, c) => json(201, await createLabel(c, authOf(req).accountId, parseInput(createLabelBody, req.body))),
  'DELETE /v1/mail/labels/{id}': async (req, c) => {
    await deleteLabel(c.store, authOf(req).accountId, req.params.id ?? '');
    return noContent();
  },
} satisfies Record<string, RouteHandler>;

export const handler = createHttpHandler(mail, inboundOnly(routes));
