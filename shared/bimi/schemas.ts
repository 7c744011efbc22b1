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

export interface BimiRecord {
  type: 'TXT';
  name: string;
  value: string;
}

/** The wire form of a domain's BIMI state. */
export interface BimiState {
  /** '' until a logo is set. */
  logo_url: string;
  record: BimiRecord | null;
  dmarc: { at_enforcement: boolean; recommended: string };
  bimi_published: boolean;
  vmc_note: string;
}

/** What the domain item's `bimi` attribute holds; stored by the domain repository. */
export type { BimiSettings } from '../domains/repository';
