// The plain-text part of a template send whose template has none, made from the rendered HTML by
// the send worker (html-to-text 10.0.1; links kept as `text [url]`, images left out, headings as
// written). Only the worker imports it: html-to-text weighs ~50 KB gzipped, more than any API
// function's bundle has room for (test/cdk/bundle-adapters.test.ts), so neither the send API nor
// the templates API carries it.
import { convert } from 'html-to-text';

const OPTIONS = {
  wordwrap: false as const,
  selectors: [
    { selector: 'a', options: { hideLinkHrefIfSameAsText: true } },
    { selector: 'img', format: 'skip' },
    { selector: 'h1', options: { uppercase: false } },
    { selector: 'h2', options: { uppercase: false } },
    { selector: 'h3', options: { uppercase: false } },
    { selector: 'h4', options: { uppercase: false } },
    { selector: 'h5', options: { uppercase: false } },
    { selector: 'h6', options: { uppercase: false } },
    { selector: 'table', options: { uppercaseHeaderCells: false } },
  ],
};

/** The text part of an HTML body: its text and links. */
export function textOfHtml(html: string): string {
  return convert(html, OPTIONS).trim();
}
