// What a template's rendered HTML becomes as it is mailed: its CSS inlined (juice) and, when the
// template has no text part, a text part made from the HTML (html-to-text 10.0.1; links kept as
// `text [url]`, images left out, headings as written). The send worker, the render route and the
// preview (functions/template-render) import it; together the two libraries weigh more than the
// 150 KB budget of the other API functions leaves room for (test/cdk/bundle-adapters.test.ts), so
// the send API and the templates API never import this module.
import { convert } from 'html-to-text';
// The client entry: the same inliner without remote-resource fetching; lib/bundling.ts gives its
// cheerio the htmlparser2-only build, which is the parser juice's options choose anyway.
import juice from 'juice/client';

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

/** A rendered template as mailed: its HTML with the CSS inlined, and its text part or one made from the HTML. */
export function asMailed(html: string, text: string | null | undefined): { html: string; text: string } {
  return { html: inlineStyles(html), text: text ?? textOfHtml(html) };
}
