// Email addresses: one normalization everywhere (trim, lower-case the whole address) and one
// parser for the `Name <address>` form.

// Pragmatic RFC 5321 shape: dot-atom local part, a domain of LDH labels with a dot. Quoted local
// parts and IP literals are refused; no mail provider we hand to accepts them reliably.
const LOCAL = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const LABEL = /^(?!-)[A-Za-z0-9-]{1,63}(?<!-)$/;

export function normalizeAddress(address: string): string {
  return address.trim().toLowerCase();
}

export function isValidAddress(address: string): boolean {
  if (address.length > 254) return false;
  const at = address.lastIndexOf('@');
  if (at <= 0 || at === address.length - 1) return false;
  const local = address.slice(0, at);
  const domain = address.slice(at + 1);
  if (local.length > 64 || !LOCAL.test(local)) return false;
  const labels = domain.split('.');
  return labels.length >= 2 && labels.every((l) => LABEL.test(l)) && !/^\d+$/.test(labels[labels.length - 1] as string);
}

export function domainOf(address: string): string {
  return address.slice(address.lastIndexOf('@') + 1);
}

export interface Mailbox {
  name?: string;
  address: string;
}

/** `a@b.c` or `Display Name <a@b.c>` (the name may be quoted); undefined when neither. */
export function parseMailbox(value: string): Mailbox | undefined {
  const trimmed = value.trim();
  const angled = /^(.*?)\s*<([^<>]+)>$/.exec(trimmed);
  const rawName = angled ? (angled[1] as string).trim() : '';
  const address = normalizeAddress(angled ? (angled[2] as string) : trimmed);
  if (!isValidAddress(address)) return undefined;
  const name = rawName.replace(/^"(.*)"$/, '$1').replace(/\\(["\\])/g, '$1').trim();
  if (/[\r\n]/.test(name)) return undefined;
  return name ? { name, address } : { address };
}

/** RFC 5322 rendering; the name is quoted whenever it holds a special character. */
export function formatMailbox(mailbox: Mailbox): string {
  if (!mailbox.name) return mailbox.address;
  const safe = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~ -]+$/.test(mailbox.name) ? mailbox.name : `"${mailbox.name.replace(/(["\\])/g, '\\$1')}"`;
  return `${safe} <${mailbox.address}>`;
}
