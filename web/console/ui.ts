// The console's controls: actions that say their failure in the status line, forms handled by the
// script, buttons, copy buttons, tables that scroll at phone width, a secret shown once, and
// "Load more" under a list (cursor pagination).
import { describeFailure } from './api';
import { el, say } from './dom';

/** Runs an action, saying its failure in the status line instead of throwing. */
export const attempt =
  <A extends unknown[]>(action: (...args: A) => unknown) =>
  async (...args: A): Promise<void> => {
    try {
      await action(...args);
    } catch (error) {
      say(describeFailure(error), true);
    }
  };

/**
 * A form's submit, handled by the script with its fields as an object of trimmed strings, named by
 * the type argument (the page's markup has each of them; a file field is read from the form).
 */
export function onSubmit<F extends string = never>(form: HTMLElement, handle: (fields: Record<F, string>, form: HTMLFormElement) => Promise<unknown>): void {
  if (!(form instanceof HTMLFormElement)) throw new Error(`#${form.id} is not a form`);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const fields: Record<string, FormDataEntryValue> = {};
    for (const [name, value] of new FormData(form)) fields[name] = typeof value === 'string' ? value.trim() : value;
    void attempt(handle)(fields as Record<F, string>, form);
  });
}

type Attrs = Record<string, string | undefined>;

export function button(label: string, onClick: () => unknown, attrs: Attrs = {}): HTMLButtonElement {
  const b = el('button', { type: 'button', ...attrs }, label);
  b.addEventListener('click', () => void attempt(onClick)());
  return b;
}

export function copyButton(text: string, what: string): HTMLButtonElement {
  const b = el('button', { type: 'button', class: 'copy', 'aria-label': `Copy ${what}` }, 'Copy');
  b.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(text);
      say(`Copied ${what}.`);
    } catch {
      say('Copy is not allowed here: select the text and copy it.', true);
    }
  });
  return b;
}

export type Cell = Node | string | null | undefined;

/** A table in a horizontally scrolling region (phone width), its header cells scoped. */
export function table(caption: string, headers: string[], rows: Cell[][], emptyText = 'Nothing yet.'): HTMLElement {
  if (!rows.length) return el('p', { class: 'empty' }, emptyText);
  const head = el('tr', {}, ...headers.map((h) => el('th', { scope: 'col' }, h)));
  const body = rows.map((cells) => el('tr', {}, ...cells.map((c) => el('td', {}, c ?? ''))));
  return el('div', { class: 'scroll', role: 'region', 'aria-label': caption, tabindex: '0' }, el('table', {}, el('caption', {}, caption), el('thead', {}, head), el('tbody', {}, ...body)));
}

/** A secret shown once: its value, a copy button, and the warning that it is never shown again. */
export function showSecret(holder: HTMLElement, label: string, secret: string): void {
  holder.replaceChildren(
    el(
      'div',
      { class: 'secret', role: 'alert' },
      el('p', {}, el('strong', {}, label), ' \u2014 shown once: copy it now, it is never shown again.'),
      el('code', {}, secret),
      ' ',
      copyButton(secret, label),
    ),
  );
}

/**
 * "Load more" under a list: cursor pagination of any list route. `load` gets the cursor of the
 * next page (null for the first) and whether the list starts afresh; the answer is the first page's
 * loader, which starts the list again.
 */
export function pager(holder: HTMLElement, load: (cursor: string | null, fresh: boolean) => Promise<{ next_cursor?: string | null }>): () => Promise<void> {
  let cursor: string | null = null;
  const more = el('button', { type: 'button', class: 'more', hidden: true }, 'Load more');
  const run = attempt(async (next: boolean) => {
    const page = await load(next ? cursor : null, !next);
    cursor = page.next_cursor || null;
    more.hidden = !cursor;
  });
  more.addEventListener('click', () => void run(true));
  holder.after(more);
  return () => run(false);
}
