// Sending domains on the wire: the request bodies the handlers parse, and the zod shapes of every
// answer. The view types are inferred from these, so the code and the OpenAPI document agree.
import * as z from 'zod';

export const createDomainBody = z.object({ domain: z.string().min(1).max(253).meta({ description: 'A host name such as example.com; any case, a trailing dot is dropped' }) }).strict();

export const fromNameBody = z
  .object({
    // Empty clears it. No line breaks or angle brackets: it becomes part of a header.
    from_name: z
      .string()
      .max(100)
      .regex(/^[^\r\n<>]*$/, 'no line breaks or angle brackets')
      .meta({ description: 'Display name on mail from the domain; "" clears it. Trimmed; no line breaks or angle brackets' }),
  })
  .strict();

/** PATCH /v1/domains/{domain}: the settings to change; only sent fields change (Resend's names). */
export const domainSettingsBody = z
  .object({
    open_tracking: z.boolean().optional().meta({ description: 'Track opens of marketing mail from the domain' }),
    click_tracking: z.boolean().optional().meta({ description: 'Track link clicks in marketing mail from the domain' }),
  })
  .strict();

/** A domain in a path: any case, trailing dot allowed. */
export const domainParams = z.object({ domain: z.string().meta({ description: 'The domain name, as registered (any case, trailing dot allowed)' }) });

export const verificationStatus = z.enum(['pending', 'verified', 'failed']);

export const dnsRecordView = z
  .object({
    type: z.enum(['CNAME', 'MX', 'TXT']),
    name: z.string().meta({ description: 'The absolute record name, without a trailing dot' }),
    value: z.string().meta({ description: 'The record data; for MX "priority exchange"' }),
  })
  .strict();

export const domainView = z
  .object({
    id: z.string().meta({ description: 'dom_…; dom_sandbox for the built-in sandbox domain' }),
    domain: z.string(),
    dkim_status: verificationStatus.meta({ description: 'The 3 DKIM CNAMEs together' }),
    spf_status: verificationStatus,
    dmarc_status: verificationStatus,
    txt_status: verificationStatus.meta({ description: 'The TXT records together (SPF, DMARC, and the ownership record when one is listed)' }),
    dns_records: z.array(dnsRecordView).meta({
      description:
        '3 DKIM CNAMEs, the MAIL FROM MX and SPF TXT, a starter DMARC TXT; empty for the sandbox domain. ' +
        'A 7th, the TXT _postbox-verification.<domain>, when another account registered the name too: it proves the domain is this account\'s',
    }),
    mail_from_domain: z.string().meta({ description: 'send.<domain>; "" for the sandbox domain' }),
    from_name: z.string().nullable().meta({ description: 'Default display name of mail from the domain; null until set' }),
    open_tracking: z.boolean().meta({ description: 'Marketing mail from the domain carries an open pixel (a send\'s `tracking.opens` overrides it); false until set' }),
    click_tracking: z.boolean().meta({ description: 'Links in marketing mail from the domain are tracked (a send\'s `tracking.clicks` overrides it); false until set' }),
    sandbox: z.boolean().meta({ description: 'True only for the built-in sandbox domain' }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .strict();

export const domainListView = z.object({ domains: z.array(domainView).meta({ description: 'The sandbox domain first, then newest first' }) }).strict();

export const fromNameView = z
  .object({ domain: z.string(), from_name: z.string().nullable().meta({ description: 'The trimmed name; null when cleared' }) })
  .strict();

export const verificationResultView = z
  .object({
    field: z
      .enum(['dkim_status', 'spf_status', 'dmarc_status', 'txt_status'])
      .meta({ description: 'The domain status this record counts toward; txt_status for the ownership record (listed only when another account registered the name too)' }),
    type: dnsRecordView.shape.type,
    name: z.string(),
    status: verificationStatus.meta({ description: 'pending when DNS did not answer' }),
    detail: z.string().meta({ description: 'What was found, in words a person can act on' }),
  })
  .strict();

export const domainVerificationView = z
  .object({
    domain: z.string(),
    fully_verified: z.boolean().meta({ description: 'DKIM, SPF and DMARC all verified' }),
    results: z.array(verificationResultView).meta({ description: 'One per DKIM CNAME, the SPF TXT and the DMARC TXT; the MX has none' }),
  })
  .strict();

export const dnsProviderView = z
  .object({
    id: z.string().meta({ description: 'cloudflare, route53, godaddy, namecheap, squarespace, digitalocean, or other' }),
    name: z.string(),
    docs_url: z.string().meta({ description: "The provider's own instructions for adding DNS records" }),
    dashboard_url: z.string().meta({ description: '"" when unknown' }),
    supports_api: z.boolean().meta({ description: 'True when records can be published through an API the deployment holds credentials for' }),
    unproxy_hint: z.boolean().meta({ description: 'True when records may be proxied by default: the DKIM CNAMEs must be set to DNS only' }),
    record_name_label: z.string().meta({ description: "The dashboard's label for the record's name field" }),
    record_value_label: z.string().meta({ description: "The dashboard's label for the record's value field" }),
  })
  .strict();

export const dnsGuideRecordView = dnsRecordView
  .extend({ host: z.string().meta({ description: "The name relative to the zone apex; '@' for the apex, an absolute dotted name outside it" }) })
  .strict();

export const dnsGuideView = z
  .object({
    domain: z.string(),
    zone_apex: z.string().meta({ description: 'The closest enclosing zone (the domain itself when DNS does not answer)' }),
    provider: dnsProviderView.meta({ description: 'Who hosts the zone, from its NS records' }),
    records: z.array(dnsGuideRecordView),
    mail_from_domain: z.string(),
    dkim_status: verificationStatus,
    spf_status: verificationStatus,
    dmarc_status: verificationStatus,
    txt_status: verificationStatus,
  })
  .strict();

export type DomainView = z.infer<typeof domainView>;
export type DomainVerification = z.infer<typeof domainVerificationView>;
export type VerificationResult = z.infer<typeof verificationResultView>;
export type DnsProvider = z.infer<typeof dnsProviderView>;
export type DnsGuideRecord = z.infer<typeof dnsGuideRecordView>;
export type DnsGuide = z.infer<typeof dnsGuideView>;
export type FromNameView = z.infer<typeof fromNameView>;
