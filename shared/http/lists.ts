// The wire side of every paginated list: what a list use case needs from the container, the
// page the query asks for, and the `{<name>: [...], next_cursor}` answer.
import { parseLimit, type Page, type PageInput } from '../pagination';
import type { Container } from '../runtime/container';
import { json } from './respond';
import type { HttpRequest, HttpResult } from './types';

export const listing = (c: Container): { store: Container['store']; cursorSecret: string } => ({
  store: c.store,
  cursorSecret: c.secrets.get('cursor-signing-key'),
});

export const pageOf = (req: HttpRequest): PageInput => ({ limit: parseLimit(req.query.limit), cursor: req.query.cursor });

export const listed = <T>(name: string, page: Page<T>): HttpResult => json(200, { [name]: page.items, next_cursor: page.nextCursor });
