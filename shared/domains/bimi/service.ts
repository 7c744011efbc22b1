// BIMI for a sending domain: the logo (a URL the customer hosts, or an SVG uploaded to us), the
// TXT record to publish, and whether DNS is ready: DMARC at enforcement and the record live.
import { domainOf } from '../../formats/address';
import { ApiError, InvalidRequestError, NotFoundError } from '../../errors';
import { logoObjectKey, normalizeDomain } from '../model';
import { DomainRepository, type DomainItem } from '../repository';
import { findDomainOwner, getDomainItem } from '../service';
import type { Container } from '../../runtime/container';
import { bimiRecordValue, isBimiPublished, readDmarc, recommendedDmarc } from './dns-records';
import type { BimiSettings, BimiState, SetLogoUrlBody } from './schemas';
import { describeProblems, svgProfileProblems } from './svg-profile';

export type BimiDeps = Pick<Container, 'store' | 'dns' | 'objects' | 'clock' | 'logger' | 'config'>;

export const BIMI_LOGO_MAX_BYTES = 1024 * 1024;
export const LOGO_CONTENT_TYPE = 'image/svg+xml';

export const VMC_NOTE =
  'Gmail and Apple Mail show a BIMI logo only when the record’s a= tag points to a Verified Mark Certificate (VMC) or a Common Mark Certificate (CMC) for it; Yahoo, AOL and Fastmail show the logo without a certificate.';

/** The uploaded logo failed the SVG Tiny PS profile; `problems` names every reason. */
export class BimiFileRejectedError extends InvalidRequestError {
  constructor(readonly problems: readonly string[]) {
    super(`rejected BIMI file: ${describeProblems(problems)}`);
    this.name = 'BimiFileRejectedError';
  }
}

export const hostedLogoPath = (domain: string): string => `/v1/bimi/${domain}/logo.svg`;

function settingsOf(item: DomainItem): BimiSettings | undefined {
  return item.bimi?.logo_url ? item.bimi : undefined;
}

/** The account's domain; the built-in sandbox domain gets a 404 that says why. */
async function domainFor(c: BimiDeps, accountId: string, domain: string): Promise<DomainItem> {
  if (normalizeDomain(domain) === domainOf(c.config.sharedEmailSender)) {
    throw new ApiError('not_found', 'the built-in sandbox domain has no BIMI settings; register a domain of your own');
  }
  return getDomainItem(c.store, accountId, domain);
}

/** TXT records at a name; a resolver that does not answer counts as no records, never a failure. */
async function txtRecords(c: BimiDeps, name: string): Promise<string[]> {
  try {
    return await c.dns.lookup(name, 'TXT');
  } catch (error) {
    c.logger.warn('BIMI state: DNS lookup got no answer; reported as not published', { name, error });
    return [];
  }
}

async function stateOf(c: BimiDeps, item: DomainItem): Promise<BimiState> {
  const domain = item.domain;
  const logoUrl = settingsOf(item)?.logo_url ?? '';
  const [dmarcRecords, bimiRecords] = await Promise.all([txtRecords(c, `_dmarc.${domain}`), logoUrl ? txtRecords(c, `default._bimi.${domain}`) : []]);
  const dmarc = readDmarc(dmarcRecords);
  return {
    logo_url: logoUrl,
    record: logoUrl ? { type: 'TXT', name: `default._bimi.${domain}`, value: bimiRecordValue(logoUrl) } : null,
    dmarc: { at_enforcement: dmarc.atEnforcement, recommended: recommendedDmarc(domain, dmarc) },
    bimi_published: isBimiPublished(bimiRecords, logoUrl),
    vmc_note: VMC_NOTE,
  };
}

async function saveSettings(c: BimiDeps, item: DomainItem, settings: BimiSettings): Promise<DomainItem> {
  const saved = await new DomainRepository(c.store).setBimi(item.account_id, item.domain, settings);
  if (!saved) throw new NotFoundError('domain'); // deleted between our read and this write
  return saved;
}

export async function getBimiState(c: BimiDeps, accountId: string, domain: string): Promise<BimiState> {
  return stateOf(c, await domainFor(c, accountId, domain));
}

/** Points BIMI at a logo the customer hosts. A logo uploaded earlier stays served, so a record already published keeps working until DNS changes. */
export async function setLogoUrl(c: BimiDeps, accountId: string, domain: string, body: SetLogoUrlBody): Promise<BimiState> {
  const item = await domainFor(c, accountId, domain);
  const saved = await saveSettings(c, item, { logo_url: body.logo_url, logo_source: 'url', updated_at: c.clock.now().toISOString() });
  return stateOf(c, saved);
}

/** Checks an uploaded SVG against the profile, hosts it, and makes it the domain's logo. */
export async function uploadLogo(c: BimiDeps, accountId: string, domain: string, upload: { file: Buffer; baseUrl: string }): Promise<BimiState> {
  const item = await domainFor(c, accountId, domain);
  if (upload.file.length > BIMI_LOGO_MAX_BYTES) {
    throw new ApiError('payload_too_large', `the BIMI logo is ${upload.file.length} bytes; the limit is ${BIMI_LOGO_MAX_BYTES} bytes (1 MiB)`);
  }
  if (upload.file.length === 0) throw new BimiFileRejectedError(['the file is empty']);
  const problems = svgProfileProblems(upload.file);
  if (problems.length > 0) throw new BimiFileRejectedError(problems);
  await c.objects.put(logoObjectKey(item.account_id, item.domain), upload.file, LOGO_CONTENT_TYPE);
  const logoUrl = `${upload.baseUrl}${hostedLogoPath(item.domain)}`;
  const saved = await saveSettings(c, item, { logo_url: logoUrl, logo_source: 'upload', updated_at: c.clock.now().toISOString() });
  return stateOf(c, saved);
}

/** The hosted logo of a domain, for anyone (mailbox providers fetch it without credentials). */
export async function readHostedLogo(c: BimiDeps, domain: string): Promise<Buffer> {
  const name = normalizeDomain(domain);
  const owner = name ? await findDomainOwner(c.store, name) : undefined;
  const logo = owner && name ? await c.objects.get(logoObjectKey(owner.account_id, name)) : undefined;
  if (!logo) throw new NotFoundError('BIMI logo');
  return logo.body;
}
