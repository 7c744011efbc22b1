import { functionNamed } from '../manifest';
import { domains } from './definition';
import { createDomainBody, domainSettingsBody, fromNameBody } from '../../shared/domains/schemas';
import { createDomain, deleteDomain, getDnsGuide, getDomain, getZoneFile, listDomains, setFromName, updateDomainSettings } from '../../shared/domains/service';
import { verifyDomain } from '../../shared/domains/verify';
import { authOf, createHttpHandler } from '../../shared/http/pipeline';
import { json, noContent } from '../../shared/http/respond';
import { parseInput } from '../../shared/http/validate';

export const handler = createHttpHandler(domains, {
  'GET /v1/domains': async (req, c) => json(200, { domains: await listDomains(c, authOf(req).accountId) }),
  'POST /v1/domains': async (req, c) => json(201, await createDomain(c, authOf(req).accountId, parseInput(createDomainBody, req.body).domain)),
  'GET /v1/domains/{domain}': async (req, c) => json(200, await getDomain(c, authOf(req).accountId, req.params.domain ?? '')),
  'PATCH /v1/domains/{domain}': async (req, c) =>
    json(200, await updateDomainSettings(c, authOf(req).accountId, req.params.domain ?? '', parseInput(domainSettingsBody, req.body))),
  'DELETE /v1/domains/{domain}': async (req, c) => {
    await deleteDomain(c, authOf(req).accountId, req.params.domain ?? '');
    return noContent();
  },
  'POST /v1/domains/{domain}/verify': async (req, c) => json(200, await verifyDomain(c, authOf(req).accountId, req.params.domain ?? '')),
  'PUT /v1/domains/{domain}/from-name': async (req, c) =>
    json(200, await setFromName(c, authOf(req).accountId, req.params.domain ?? '', parseInput(fromNameBody, req.body).from_name)),
  'GET /v1/domains/{domain}/dns-setup': async (req, c) => json(200, await getDnsGuide(c, authOf(req).accountId, req.params.domain ?? '')),
  // A zone file is pasted or imported as text, not parsed as JSON.
  'GET /v1/domains/{domain}/dns-setup/zonefile': async (req, c) => ({
    status: 200,
    body: await getZoneFile(c, authOf(req).accountId, req.params.domain ?? ''),
    headers: { 'content-type': 'text/plain; charset=utf-8' },
  }),
});
