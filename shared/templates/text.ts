// The plain-text part of a template send whose template has none, made from the rendered HTML by
// the send worker (html-to-text 10.0.1; links kept as `text [url]`, images left out, headings as
// written). Only the worker imports it: html-to-text weighs ~50 KB gzipped, more than any API
// function's bundle has room for (test/cdk/bundle-adapters.test.ts), so neither the send API nor
// the templates API carries it.
import { convert } from 'html-to-text';
import juice from 'juice';

const OPTIONS = {
  // Lines of at most 78 characters, as mail wants them.
  wordwrap: 78,
  selectors: [
    { selector: 'a', options: { hideLinkHrefIfSameAsText: true } },
    { selector: 'img', format: 'skip' },
    { selector: '.preheader', format: 'skip' },
    { selector: 'h1', options: { uppercase: false } },
    { selector: 'h2', options: { uppercase: false } },
    { selector: 'h3', options: { uppercase: false } },
    { selector: 'h4', options: { uppercase: false } },
    { selector: 'h5', options: { uppercase: false } },
    { selector: 'h6', options: { uppercase: false } },
    { selector: 'table', options: { uppercaseHeaderCells: false } },
    { selector: 'table.data', format: 'dataTable', options: { uppercaseHeaderCells: false } },
    { selector: 'td', format: 'block' },
  ],
};

/** The text part of an HTML body: its text and links (URLs kept), data tables as columns. */
export function textOfHtml(html: string): string {
  return convert(html, OPTIONS).trim();
}

/**
 * HTML with its `<style>` rules copied onto the elements they match (juice 11.1.1), so mail
 * clients that strip `<style>` still show them; media queries stay in a `<style>` block. Mustache
 * tags survive. The send worker inlines a template's HTML as it sends, for the same bundle reason
 * as the text part.
 */
export function inlineStyles(html: string): string {
  return juice(html);
}
