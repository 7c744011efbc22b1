// The frame every gallery template shares, joined in TypeScript rather than through Mustache
// partials: a 600px table layout that narrows on small screens, a hidden preheader, a header with
// the company name and a plain footer with the company's name and address (and an unsubscribe
// link on marketing mail). Shared styles sit in one <style> block and are inlined later (juice);
// the few inline styles here are the ones clients that ignore <style> need most.
import type { GalleryCategory, GalleryTemplate, GalleryVariable } from './types';

const FONT = "-apple-system, BlinkMacSystemFont, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif";

export const STYLES = `
    body { margin: 0; padding: 0; width: 100%; background-color: #f3f4f6; -webkit-text-size-adjust: 100%; }
    table { border-collapse: collapse; }
    img { border: 0; line-height: 100%; outline: none; text-decoration: none; }
    .wrapper { width: 100%; background-color: #f3f4f6; }
    .container { width: 100%; max-width: 600px; }
    .header { padding: 24px 32px; font-family: ${FONT}; font-size: 20px; font-weight: 700; color: #111827; }
    .card { background-color: #ffffff; border-radius: 8px; }
    .content { padding: 32px; font-family: ${FONT}; font-size: 16px; line-height: 24px; color: #1f2937; }
    .content p { margin: 0 0 16px 0; }
    h1 { margin: 0 0 16px 0; font-family: ${FONT}; font-size: 26px; line-height: 32px; font-weight: 700; color: #111827; }
    h2 { margin: 24px 0 12px 0; font-family: ${FONT}; font-size: 20px; line-height: 28px; font-weight: 700; color: #111827; }
    a { color: #1d4ed8; text-decoration: underline; }
    .button-cell { border-radius: 6px; background-color: #1d4ed8; }
    .button-link { display: inline-block; padding: 12px 24px; font-family: ${FONT}; font-size: 16px; font-weight: 700; color: #ffffff; text-decoration: none; border-radius: 6px; }
    .muted { font-size: 14px; line-height: 20px; color: #4b5563; }
    .break { word-break: break-all; }
    .notice { padding: 16px; background-color: #fef3c7; border-left: 4px solid #b45309; color: #1f2937; }
    .data { width: 100%; margin: 0 0 16px 0; }
    .data th { padding: 8px 0; border-bottom: 2px solid #e5e7eb; font-family: ${FONT}; font-size: 14px; text-align: left; color: #4b5563; }
    .data td { padding: 8px 0; border-bottom: 1px solid #e5e7eb; font-family: ${FONT}; font-size: 15px; color: #1f2937; vertical-align: top; }
    .data .amount { text-align: right; white-space: nowrap; }
    .data .total td { border-bottom: 0; font-weight: 700; }
    .details td { padding: 4px 0; font-family: ${FONT}; font-size: 15px; color: #1f2937; vertical-align: top; }
    .details .label { width: 40%; color: #4b5563; }
    .hero { display: block; width: 100%; max-width: 536px; height: auto; border-radius: 6px; }
    .footer { padding: 24px 32px; font-family: ${FONT}; font-size: 13px; line-height: 20px; color: #4b5563; text-align: center; }
    .footer a { color: #4b5563; }
    @media only screen and (max-width: 620px) {
      .container { width: 100% !important; }
      .header { padding: 16px 20px !important; }
      .content { padding: 20px !important; }
      .footer { padding: 20px !important; }
      h1 { font-size: 22px !important; line-height: 28px !important; }
      .stack { display: block !important; width: 100% !important; }
      .button-link { display: block !important; text-align: center !important; }
    }`;

/** Variables the frame itself uses; every gallery template declares them. */
export function layoutVariables(marketing: boolean): GalleryVariable[] {
  const frame: GalleryVariable[] = [
    { name: 'company_name', required: true },
    { name: 'company_address', required: true },
  ];
  return marketing ? [...frame, { name: 'unsubscribe_url', required: true }] : frame;
}

export const LAYOUT_SAMPLES = {
  company_name: 'Acme Cloud',
  company_address: 'Acme Cloud Inc., 548 Market Street, San Francisco, CA 94104, USA',
  unsubscribe_url: 'https://acme.example.com/email/unsubscribe?token=8f3e2a',
} as const;

export interface LayoutOptions {
  /** The <title>: plain text, may use variables. */
  readonly title: string;
  /** The preview line clients show next to the subject; hidden in the body. */
  readonly preheader: string;
  /** The card's inner HTML. */
  readonly content: string;
  /** Marketing mail carries an unsubscribe link in the footer. */
  readonly marketing: boolean;
  /** The footer's line saying why this email came. */
  readonly reason: string;
}

export function layout(o: LayoutOptions): string {
  const unsubscribe = o.marketing
    ? `\n                  <br><a href="{{ unsubscribe_url }}" style="color: #4b5563;">Unsubscribe</a> from these emails.`
    : '';
  return `<!DOCTYPE html>
<html lang="en" xmlns="http://www.w3.org/1999/xhtml">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <meta name="x-apple-disable-message-reformatting">
    <meta name="color-scheme" content="light">
    <title>${o.title}</title>
    <style>${STYLES}
    </style>
  </head>
  <body style="margin: 0; padding: 0; background-color: #f3f4f6;">
    <div class="preheader" style="display: none; max-height: 0; overflow: hidden; mso-hide: all;">${o.preheader}</div>
    <table role="presentation" class="wrapper" width="100%" cellpadding="0" cellspacing="0" border="0" style="background-color: #f3f4f6;">
      <tr>
        <td align="center" style="padding: 24px 12px;">
          <table role="presentation" class="container" width="600" cellpadding="0" cellspacing="0" border="0" style="width: 100%; max-width: 600px;">
            <tr>
              <td class="header">{{ company_name }}</td>
            </tr>
            <tr>
              <td class="card" style="background-color: #ffffff;">
                <table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0">
                  <tr>
                    <td class="content">
${o.content.trim()}
                    </td>
                  </tr>
                </table>
              </td>
            </tr>
            <tr>
              <td class="footer">
                <p style="margin: 0;">${o.reason}
                  <br>{{ company_name }} &middot; {{ company_address }}${unsubscribe}
                </p>
              </td>
            </tr>
          </table>
        </td>
      </tr>
    </table>
  </body>
</html>
`;
}

/** A bulletproof button: a table cell with a background, the link filling it. */
export function button(urlVariable: string, label: string): string {
  return `<table role="presentation" cellpadding="0" cellspacing="0" border="0" style="margin: 8px 0 24px 0;">
  <tr>
    <td class="button-cell" style="border-radius: 6px; background-color: #1d4ed8;">
      <a href="{{ ${urlVariable} }}" class="button-link" style="color: #ffffff; text-decoration: none;">${label}</a>
    </td>
  </tr>
</table>`;
}

/** The same link written out, for clients (and people) that cannot use the button. */
export function fallbackLink(urlVariable: string): string {
  return `<p class="muted">If the button does not work, copy this address into your browser:<br>
<a href="{{ ${urlVariable} }}" class="break">{{ ${urlVariable} }}</a></p>`;
}

export interface GalleryDefinition {
  readonly id: string;
  readonly name: string;
  readonly category: GalleryCategory;
  readonly description: string;
  readonly subject: string;
  readonly title: string;
  readonly preheader: string;
  readonly reason: string;
  readonly content: string;
  /** The template's own variables; the frame's are added. */
  readonly variables: readonly GalleryVariable[];
  /** Samples for the template's own variables; the frame's are added. */
  readonly samples: Readonly<Record<string, unknown>>;
}

/** A gallery template from its own parts and the shared frame. */
export function defineTemplate(d: GalleryDefinition): GalleryTemplate {
  const marketing = d.category === 'marketing';
  const frameSamples: Record<string, unknown> = { company_name: LAYOUT_SAMPLES.company_name, company_address: LAYOUT_SAMPLES.company_address };
  if (marketing) frameSamples.unsubscribe_url = LAYOUT_SAMPLES.unsubscribe_url;
  return Object.freeze({
    id: d.id,
    name: d.name,
    category: d.category,
    description: d.description,
    subject: d.subject,
    body_html: layout({ title: d.title, preheader: d.preheader, content: d.content, marketing, reason: d.reason }),
    sample_variables: Object.freeze({ ...frameSamples, ...d.samples }),
    variables: Object.freeze([...layoutVariables(marketing), ...d.variables]),
  });
}

/** Shorthand for declaring variables: required ones by name, optional ones with a default. */
export const req = (name: string): GalleryVariable => ({ name, required: true });
export const opt = (name: string, default_value: string): GalleryVariable => ({ name, required: false, default_value });
