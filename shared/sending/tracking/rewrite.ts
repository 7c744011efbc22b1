// The local runtime's open and click tracking, as SES's configuration set does it in AWS: each
// http(s) link of the HTML part becomes a signed click link on the public origin, and a 1×1 pixel
// with a signed open link is appended. The text part is left as it is (SES rewrites HTML only).
import { tracksClicks, tracksOpens, type TrackingChoice } from './choice';
import { MAX_TRACKED_LINK_LENGTH, trackToken, type TrackedRef } from './token';

export const OPEN_PATH = '/v1/t/o';
export const CLICK_PATH = '/v1/t/c';

export interface TrackingLinks {
  secret: string;
  /** PUBLIC_BASE_URL, without a trailing slash. */
  baseUrl: string;
}

const ANCHOR = /<a\b[^>]*>/gi;
const HREF = /(\shref\s*=\s*)(?:"([^"]*)"|'([^']*)')/i;

/** The few entities a link in an attribute carries; anything else is left as written. */
const unescapeAttr = (value: string): string =>
  value.replace(/&amp;/gi, '&').replace(/&quot;/gi, '"').replace(/&#39;|&apos;/gi, "'").replace(/&lt;/gi, '<').replace(/&gt;/gi, '>');

export const clickUrl = (links: TrackingLinks, ref: TrackedRef, link: string): string =>
  `${links.baseUrl}${CLICK_PATH}/${trackToken(links.secret, 'click', ref, link)}?url=${encodeURIComponent(link)}`;

export const openUrl = (links: TrackingLinks, ref: TrackedRef): string => `${links.baseUrl}${OPEN_PATH}/${trackToken(links.secret, 'open', ref)}`;

/** A link worth tracking: http(s), not one of ours (the unsubscribe link stays as it is), not too long. */
function trackable(links: TrackingLinks, link: string): boolean {
  return /^https?:\/\//i.test(link) && !link.startsWith(`${links.baseUrl}/`) && link.length <= MAX_TRACKED_LINK_LENGTH;
}

function rewriteLinks(links: TrackingLinks, ref: TrackedRef, html: string): string {
  return html.replace(ANCHOR, (tag) =>
    tag.replace(HREF, (whole, lead: string, double: string | undefined, single: string | undefined) => {
      const link = unescapeAttr((double ?? single ?? '').trim());
      if (!trackable(links, link)) return whole;
      return `${lead}"${clickUrl(links, ref, link).replace(/&/g, '&amp;')}"`;
    }),
  );
}

function appendPixel(links: TrackingLinks, ref: TrackedRef, html: string): string {
  const pixel = `<img src="${openUrl(links, ref)}" width="1" height="1" alt="" style="display:block;width:1px;height:1px;border:0">`;
  const close = html.search(/<\/body\s*>/i);
  return close === -1 ? `${html}${pixel}` : `${html.slice(0, close)}${pixel}${html.slice(close)}`;
}

/** The HTML part as mailed with the message's tracking; unchanged when nothing is tracked. */
export function trackHtml(links: TrackingLinks, ref: TrackedRef, choice: TrackingChoice | undefined, html: string): string {
  let out = html;
  if (tracksClicks(choice)) out = rewriteLinks(links, ref, out);
  if (tracksOpens(choice)) out = appendPixel(links, ref, out);
  return out;
}
