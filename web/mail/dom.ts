// Building the page's elements with text only: attributes set one by one, children appended as
// nodes or text, never markup. Everything from mail enters the document this way.

type Attrs = Record<string, string | number | boolean | null | undefined>;
type Kid = Node | string | null | undefined | false;

/** The element of the page with this id; the page's markup (functions/mail-page/page.ts) has them all. */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const node = document.getElementById(id);
  if (!node) throw new Error(`the page has no #${id}`);
  return node as T;
}

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...kids: Kid[]): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value !== undefined && value !== null && value !== false) node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const kid of kids) if (kid !== undefined && kid !== null && kid !== false) node.append(kid);
  return node;
}

/** A time in the reader's locale. */
export const when = (iso: string | null | undefined): string => (iso ? new Date(iso).toLocaleString() : '');

/** The status line (#status, a polite live region). */
export function say(text: string, isError = false): void {
  const status = byId('status');
  status.textContent = text;
  status.className = isError ? 'error' : '';
}

/** "1 thread", "3 threads". */
export const count = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;
