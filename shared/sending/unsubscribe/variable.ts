// `{{ unsubscribe_url }}` in a marketing template. A send is rendered when it is accepted, before
// the link is made: the variable renders as a placeholder there, and the send worker, which makes
// the link for the List-Unsubscribe header anyway, puts the link in its place as it mails the
// message. So accepting a send (the API's hot path, and each broadcast recipient) needs neither
// the signing key nor the public origin, and the link goes into HTML as written, not entity-escaped.

/** The variable a marketing template may use for its message's unsubscribe link (docs/api-decisions.md). */
export const UNSUBSCRIBE_VARIABLE = 'unsubscribe_url';

/** Letters, digits and dashes only: HTML escaping, CSS inlining and HTML-to-text leave it whole. */
export const UNSUBSCRIBE_PLACEHOLDER = 'postbox-unsubscribe-url-5c1d7a9e3f';

/** The rendered part with the message's link in place of the placeholder. */
export const fillUnsubscribeUrl = (part: string, url: string): string => part.replaceAll(UNSUBSCRIBE_PLACEHOLDER, url);
