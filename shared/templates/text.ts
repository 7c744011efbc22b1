// The plain-text part of a template send whose template has none, made from the rendered HTML by
// the send worker (html-to-text 10.0.1; links kept as `text [url]`, images left out, headings as
// written). Only the worker imports it: html-to-text weighs ~50 KB gzipped, more than any API
// function's bundle has room for (test/cdk/bundle-adapters.test.ts), so neither the send API nor
// the templates API carries it.
import { convert } from 'html-to-text';
import juice from 'juice';

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

/**
 * A rendered template's HTML with its `<style>` rules copied onto the elements they match (juice
 * 11.1.1), so mail clients that strip `<style>` (Gmail's web client in some views, many webmail
 * clients) still show it. Done by the send worker at send time, for the same bundle reason as the
 * text part: the `<style>` block stays for clients that honour media queries.
 */
export function inlineStyles(html: string): string {
  return juice(html, { removeStyleTags: false, preserveMediaQueries: true });
}
