// Drawing the state into the page: the list, the open thread with its messages, a message's HTML
// in its sandboxed frame, the labels and the address filter. Text goes in as text (dom.ts); what a
// click does is the caller's (actions.ts passes its handlers), so drawing never calls the API.
import { byId, el, when } from './dom';
import { sanitizeMail } from './sanitize';
import { FOLDER_NAMES, state, type HtmlEntry, type Label, type MailMessage } from './state';

export interface ListHandlers {
  open(index: number, id: string): void;
}

export interface ThreadHandlers {
  removeLabel(name: string): void;
  showHtml(box: HTMLElement, id: string, text: HTMLElement): void;
}

export function renderList(on: ListHandlers): void {
  const list = byId<HTMLUListElement>('threads');
  list.replaceChildren();
  byId('list-title').textContent = state.query ? `Search: ${state.query}` : FOLDER_NAMES[state.folder];
  for (const button of document.querySelectorAll<HTMLButtonElement>('#folders button')) {
    button.setAttribute('aria-current', String(!state.query && button.dataset.folder === state.folder));
  }
  state.items.forEach((t, i) => {
    const meta = (t.starred ? '\u2605 ' : '') + t.who + ' \u00b7 ' + when(t.at) + (t.count !== null && t.count > 1 ? ` \u00b7 ${t.count}` : '');
    const open = el(
      'button',
      { type: 'button', 'aria-current': state.thread?.id === t.id ? 'true' : undefined },
      t.unread ? el('span', { class: 'visually-hidden' }, 'Unread. ') : null,
      el('span', { class: 'meta' }, meta),
      el('br'),
      el('span', { class: 'subject' }, t.subject || '(no subject)'),
      ' ',
      ...t.labels.map((name) => el('span', { class: 'chip' }, name)),
      el('span', { class: 'snippet' }, t.snippet ?? ''),
    );
    open.addEventListener('click', () => on.open(i, t.id));
    const classes = [t.unread ? 'unread' : '', i === state.selected ? 'selected' : ''].join(' ').trim();
    list.append(el('li', { class: classes, 'data-thread': t.id }, open));
  });
  if (!state.items.length) list.append(el('li', { class: 'empty' }, state.query ? 'No mail matches.' : 'No threads here.'));
  byId('more').hidden = !state.cursor;
}

export function renderThread(on: ThreadHandlers): void {
  const t = state.thread;
  if (!t) return;
  byId('thread-title').textContent = t.subject || '(no subject)';
  const star = byId('star');
  star.setAttribute('aria-pressed', String(t.is_starred));
  star.textContent = t.is_starred ? 'Starred' : 'Star';
  byId<HTMLSelectElement>('move-to').value = t.folder;
  const own = new Set(t.labels.map((l) => l.toLowerCase()));
  byId('thread-labels').replaceChildren(
    ...t.labels.map((name) => {
      const remove = el('button', { type: 'button', 'aria-label': `Remove label ${name}` }, `${name} \u00d7`);
      remove.addEventListener('click', () => on.removeLabel(name));
      return el('li', {}, remove);
    }),
  );
  const addLabel = byId<HTMLSelectElement>('add-label');
  addLabel.replaceChildren(...state.labels.filter((l) => !own.has(l.name.toLowerCase())).map((l) => el('option', { value: l.name }, l.name)));
  byId<HTMLButtonElement>('label-add').disabled = !addLabel.options.length;
  byId('messages').replaceChildren(...t.messages.map((m) => renderMessage(m, on)));
}

function renderMessage(m: MailMessage, on: ThreadHandlers): HTMLElement {
  const box = el('section', { class: 'message', 'data-source': m.source, 'data-id': m.id, 'aria-label': `Message from ${m.from || 'unknown'}` });
  const facts = m.source === 'inbound' ? `SPF ${m.spf_verdict}, DKIM ${m.dkim_verdict}, DMARC ${m.dmarc_verdict}` : 'Sent' + (m.status ? `, ${m.status}` : '');
  box.append(
    el('p', { class: 'meta' }, el('strong', {}, m.from || '(unknown sender)'), ` to ${m.to.join(', ')} \u00b7 ${when(m.occurred_at)}`),
    el('p', { class: 'meta' }, facts),
  );
  const text = el('pre', { class: 'text' });
  text.textContent = m.text_body ?? '(no text part)';
  box.append(text);
  if (m.source === 'inbound') on.showHtml(box, m.id, text);
  return box;
}

/** The message's HTML in a frame without scripts nor same-origin, with the offer to show its remote images. */
export function renderHtml(holder: HTMLElement, html: string, entry: HtmlEntry): void {
  const { srcdoc, blocked } = sanitizeMail(html, entry.showImages);
  const frame = el('iframe', { class: 'html', sandbox: 'allow-popups allow-popups-to-escape-sandbox', referrerpolicy: 'no-referrer', title: 'The message as HTML' });
  frame.srcdoc = srcdoc;
  holder.replaceChildren();
  if (blocked) {
    const show = el('button', { type: 'button', class: 'show-images' }, `Show ${blocked} remote image${blocked === 1 ? '' : 's'}`);
    show.addEventListener('click', () => {
      entry.showImages = true;
      renderHtml(holder, html, entry);
      holder.querySelector('iframe')?.focus();
    });
    holder.append(el('p', { class: 'hint' }, 'Remote images are blocked: loading them tells the sender you read this. '), show);
  }
  holder.append(frame);
}

export function renderLabels(labels: Label[]): void {
  byId('labels').replaceChildren(...labels.map((l) => el('li', {}, el('span', { class: 'swatch', 'data-color': l.color }), l.name)));
  for (const swatch of document.querySelectorAll<HTMLElement>('#labels .swatch')) swatch.style.background = swatch.dataset.color ?? '';
}

export function renderInboxes(inboxes: ReadonlyArray<{ id: string; address: string }>): void {
  const filter = byId<HTMLSelectElement>('inbox-filter');
  filter.replaceChildren(el('option', { value: '' }, 'All addresses'), ...inboxes.map((i) => el('option', { value: i.id }, i.address)));
  filter.value = state.inboxId;
}
