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

export const suppressionsSection: Section = { markup, nav: [{ view: 'suppressions', label: 'Suppressions' }] };
