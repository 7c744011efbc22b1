// prefersHtml, the content negotiation behind the public links (form pages, test-recipient and
// unsubscribe confirmations): a browser's Accept gets the page, API clients get JSON.
import { describe, expect, it } from 'vitest';
import { prefersHtml } from '../../shared/http/negotiate';

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

describe('prefersHtml', () => {
  it.each([
    [BROWSER_ACCEPT, true],
    ['text/html', true],
    ['application/json', false],
    ['*/*', false],
    [undefined, false],
    ['text/html;q=0.5, application/json', false],
  ])('prefersHtml(%j) is %s', (accept, expected) => {
    expect(prefersHtml(accept)).toBe(expected);
  });
});
