// Messages: the list with its filters (channel, status, from, to), and one message's timeline.
import type { Query } from '../../../client/src/index';
import { api, present } from '../api';
import { $, el, when } from '../dom';
import type { View } from '../router';
import { attempt, button, onSubmit, pager, table } from '../ui';

type Filters = Pick<Query<'/v1/messages', 'get'>, 'channel' | 'status' | 'from' | 'to'>;
type Summary = Awaited<ReturnType<typeof listPage>>['messages'][number];

let filters: Filters = {};
let opened = '';
let rows: Summary[] = [];
let list = async (): Promise<void> => undefined;

const listPage = (cursor: string | null) => api((c) => c.messages.list(present({ limit: 50, cursor, ...filters })));

async function openMessage(id: string, keepFocus = false): Promise<void> {
  const m = await api((c) => c.messages.get(id));
  opened = m.id;
  $('message-detail').hidden = false;
  $('message-title').textContent = `Message ${m.id}`;
  $('message-facts').replaceChildren(el('p', {}, `${m.channel}, ${m.message_type}, ${m.status}${m.test_mode ? ', test mode' : ''} \u00b7 created ${when(m.created_at)}`));
  $('message-timeline').replaceChildren(...m.events.map((e) => el('li', {}, el('strong', {}, e.type), ` ${when(e.occurred_at)} \u00b7 ${e.source}`)));
  if (!m.events.length) $('message-timeline').append(el('li', {}, 'No events yet.'));
  if (!keepFocus) $('message-title').focus();
}

const messages: View = {
  wire() {
    $('message-refresh').addEventListener(
      'click',
      () =>
        void attempt(async () => {
          await openMessage(opened, true);
          await list();
        })(),
    );
    list = pager($('message-list'), async (cursor, fresh) => {
      const page = await listPage(cursor);
      rows = (fresh ? [] : rows).concat(page.messages);
      const cells = rows.map((m) => [when(m.created_at), m.channel, m.message_type, m.status, button('Timeline', () => openMessage(m.id), { 'aria-label': `Timeline of ${m.id}` })]);
      $('message-list').replaceChildren(table('Messages', ['Created', 'Channel', 'Type', 'Status', ''], cells, 'No messages match.'));
      return page;
    });
    onSubmit<'channel' | 'status' | 'from' | 'to'>($('message-filters'), async (f) => {
      filters = present({ channel: f.channel as Filters['channel'], status: f.status as Filters['status'], from: f.from, to: f.to });
      await list();
    });
  },
  load(id) {
    $('message-detail').hidden = true;
    if (id) void attempt(openMessage)(id);
    return list();
  },
};

export const messageViews: Record<string, View> = { messages };
