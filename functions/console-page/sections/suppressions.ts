// Suppressions: the list, add one, remove one, and import a CSV (email[,reason[,state]] per line,
// an optional header) parsed here and posted to the import route in one request.
import { field, view, type Section } from '../section';

const markup = view(
  'suppressions',
  'Suppressions',
  `<form id="suppression-form" class="inline">${field('suppression-recipient', 'Recipient', '<input id="suppression-recipient" name="recipient" required>')}
${field('suppression-channel', 'Channel', '<select id="suppression-channel" name="channel"><option>email</option><option>sms</option><option>push</option><option>voice</option><option>webhook</option></select>')}
${field('suppression-reason', 'Reason (optional)', '<input id="suppression-reason" name="reason" maxlength="200">')}
<button type="submit">Suppress</button></form>
<form id="suppression-import" class="inline">${field('suppression-file', 'Import a CSV of email addresses (email, reason, state)', '<input id="suppression-file" name="file" type="file" accept=".csv,text/csv" required>')}
<button type="submit">Import</button></form>
<div id="suppression-list"></div>`,
);

const script = String.raw`
/** The CSV's rows as import entries: the first column an address, then reason and state; a header row is skipped. */
function suppressionEntries(text) {
  const entries = [];
  for (const line of text.split(/\r?\n/)) {
    const cells = line.split(',').map((c) => c.trim().replace(/^"(.*)"$/, '$1'));
    if (!cells[0] || !cells[0].includes('@')) continue;
    entries.push(Object.assign({ email: cells[0] }, cells[1] ? { reason: cells[1] } : {}, cells[2] ? { state: cells[2] } : {}));
  }
  return entries;
}
views.suppressions = {
  wire() {
    views.suppressions.list = pager($('suppression-list'), async (cursor, fresh) => {
      const page = await api('GET', '/v1/suppressions' + query({ limit: 50, cursor }));
      views.suppressions.rows = (fresh ? [] : views.suppressions.rows).concat(page.suppressions);
      $('suppression-list').replaceChildren(table('Suppressions', ['Recipient', 'Channel', 'State', 'Reason', 'Updated', ''], views.suppressions.rows.map((s) => [
        s.recipient, s.channel, s.state, s.reason, when(s.updated_at),
        button('Remove', async () => {
          await api('DELETE', '/v1/suppressions' + query({ channel: s.channel, recipient: s.recipient }));
          say('Removed ' + s.recipient + '.');
          await views.suppressions.list();
        }, { 'aria-label': 'Remove ' + s.recipient, class: 'danger' }),
      ]), 'No suppressions.'));
      return page;
    });
    onSubmit($('suppression-form'), async (f, form) => {
      await api('POST', '/v1/suppressions', { channel: f.channel, recipient: f.recipient, ...(f.reason ? { reason: f.reason } : {}) });
      form.reset();
      say('Suppressed ' + f.recipient + '.');
      await views.suppressions.list();
    });
    onSubmit($('suppression-import'), async (f, form) => {
      const entries = suppressionEntries(await f.file.text());
      if (!entries.length) throw new ApiFailure('The file has no email addresses.', 400, 'invalid_request');
      const result = await api('POST', '/v1/suppressions/import', { channel: 'email', entries });
      form.reset();
      say('Imported ' + result.imported + ', skipped ' + result.skipped + '.');
      await views.suppressions.list();
    });
  },
  load() {
    return views.suppressions.list();
  },
};
`;

export const suppressionsSection: Section = { markup, script, nav: [{ view: 'suppressions', label: 'Suppressions' }] };
