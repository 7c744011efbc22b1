import * as z from 'zod';

/** Mailbox providers fetch the logo themselves and only over TLS. */
export const setLogoUrlBody = z
  .object({
    logo_url: z
      .string()
      .trim()
      .max(2048, 'must be at most 2048 characters')
      .refine((value) => URL.canParse(value) && new URL(value).protocol === 'https:', 'must be an https URL')
      // l= is a comma-separated list inside a ;-separated record: these would break the record.
      .refine((value) => !/[;,\s]/.test(value), 'must not contain ";", "," or spaces'),
  })
  .strict();

export type SetLogoUrlBody = z.infer<typeof setLogoUrlBody>;

export const bimiRecordView = z
  .object({
    type: z.literal('TXT'),
    name: z.string().meta({ description: 'default._bimi.<domain>' }),
    value: z.string().meta({ description: 'v=BIMI1; l=<logo_url>; a= (no mark certificate)' }),
  })
  .strict();

/** The wire form of a domain's BIMI state. */
export const bimiStateView = z
  .object({
    logo_url: z.string().meta({ description: '"" until a logo is set; an uploaded logo is served at /v1/bimi/{domain}/logo.svg' }),
    record: bimiRecordView.nullable().meta({ description: 'The TXT record to publish; null until a logo is set' }),
    dmarc: z
      .object({
        at_enforcement: z.boolean().meta({ description: 'Exactly one DMARC record at _dmarc.<domain>, p=quarantine or p=reject, pct absent or 100' }),
        recommended: z.string().meta({ description: 'The DMARC record to publish for BIMI: the current one moved to enforcement' }),
      })
      .strict(),
    bimi_published: z.boolean().meta({ description: 'Exactly one v=BIMI1 record at default._bimi.<domain> whose l= is logo_url; DNS that does not answer reads as false' }),
    vmc_note: z.string().meta({ description: 'Which mailbox providers need a Verified Mark Certificate to show the logo' }),
  })
  .strict();

export type BimiRecord = z.infer<typeof bimiRecordView>;
export type BimiState = z.infer<typeof bimiStateView>;

/**
 * The multipart/form-data upload, for the document: the first part that carries a filename is
 * the logo, whatever its field name (shared/formats/multipart.ts reads it; other parts are ignored).
 */
export const logoUploadBody = z
  .object({
    file: z.string().meta({
      description: 'The SVG Tiny PS logo, at most 1 MiB: any field name, the part must carry a filename',
      format: 'binary',
      contentMediaType: 'image/svg+xml',
    }),
  })
  .meta({ description: 'multipart/form-data: the first part with a filename is the logo' });

/** What the domain item's `bimi` attribute holds; stored by the domain repository. */
export type { BimiSettings } from '../repository';
