// Suppressions: the list, add one, remove one, and import a CSV (email[,reason[,state]] per line,
// an optional header) parsed here and posted to the import route in one request.
import type { Body, Ok } from '../../../client/src/index';
import { api, failure, present } from '../api';
import { $, say, when } from '../dom';
import type { View } from '../router';
import { button, onSubmit, pager, table } from '../ui';

type Suppression = Ok<'/v1/suppressions', 'get'>['suppressions'][number];
type Entry = Body<'/v1/suppressions/import', 'post'>['entries'][number];
type Channel = Suppression['channel'];

let rows: Suppression[] = [];
let list = async (): Promise<void> => undefined;

/** The CSV's rows as import entries: the first column an address, then reason and state; a header row is skipped. */
function suppressionEntries(text: string): Entry[] {
  const entries: Entry[] = [];
  for (const line of text.split(/\r?\n/)) {
    const [email, reason, state] = line.split(',').map((c) => c.trim().replace(/^"(.*)"$/, '$1'));
    if (!email || !email.includes('@')) continue;
    entries.push({ email, ...(reason ? { reason } : {}), ...(state ? { state: state as Entry['state'] } : {}) } as Entry);
  }
  return entries;
}

const remove = (s: Suppression) =>
  button(
    'Remove',
    async () => {
      await api((c) => c.suppressions.remove({ channel: s.channel, recipient: s.recipient }));
      say(`Removed ${s.recipient}.`);
      await list();
    },
    { 'aria-label': `Remove ${s.recipient}`, class: 'danger' },
  );

async function importFile(form: HTMLFormElement): Promise<void> {
  const file = new FormData(form).get('file');
  const entries = suppressionEntries(file instanceof File ? await file.text() : '');
  if (!entries.length) throw failure('The file has no email addresses.', 'invalid_request');
  const result = await api((c) => c.suppressions.import({ channel: 'email', entries }));
  form.reset();
  say(`Imported ${result.imported}, skipped ${result.skipped}.`);
  await list();
}

const suppressions: View = {
  wire() {
    list = pager($('suppression-list'), async (cursor, fresh) => {
      const page = await api((c) => c.suppressions.list(present({ limit: 50, cursor })));
      rows = (fresh ? [] : rows).concat(page.suppressions);
      const cells = rows.map((s) => [s.recipient, s.channel, s.state, s.reason, when(s.updated_at), remove(s)]);
      $('suppression-list').replaceChildren(table('Suppressions', ['Recipient', 'Channel', 'State', 'Reason', 'Updated', ''], cells, 'No suppressions.'));
      return page;
    });
    onSubmit<'channel' | 'recipient' | 'reason'>($('suppression-form'), async (f, form) => {
      await api((c) => c.suppressions.add({ channel: f.channel as Channel, recipient: f.recipient, ...(f.reason ? { reason: f.reason } : {}) }));
      form.reset();
      say(`Suppressed ${f.recipient}.`);
      await list();
    });
    onSubmit($('suppression-import'), (_, form) => importFile(form));
  },
  load() {
    return list();
  },
};

export const suppressionViews: Record<string, View> = { suppressions };
