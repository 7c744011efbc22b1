// The client's calls of sending domains (DNS setup, verification, tracking, BIMI): each a
// function of the transport's Requester, which client/src/index.ts makes a namespace of Postbox.
import { enc, type Requester } from '../transport';
import type { Body, Ok, PathParams } from '../types';

export const domainsCalls = (request: Requester) => ({
  list: () => request<Ok<'/v1/domains', 'get'>>({ method: 'GET', path: '/v1/domains' }),
  create: (body: Body<'/v1/domains', 'post'>) => request<Ok<'/v1/domains', 'post'>>({ method: 'POST', path: '/v1/domains', body }),
  get: (domain: PathParams<'/v1/domains/{domain}', 'get'>['domain']) =>
    request<Ok<'/v1/domains/{domain}', 'get'>>({ method: 'GET', path: `/v1/domains/${enc(domain)}` }),
  /** Open and click tracking of the domain's marketing mail; only the fields sent change. */
  update: (domain: PathParams<'/v1/domains/{domain}', 'patch'>['domain'], body: Body<'/v1/domains/{domain}', 'patch'>) =>
    request<Ok<'/v1/domains/{domain}', 'patch'>>({ method: 'PATCH', path: `/v1/domains/${enc(domain)}`, body }),
  remove: (domain: PathParams<'/v1/domains/{domain}', 'delete'>['domain']) =>
    request<Ok<'/v1/domains/{domain}', 'delete'>>({ method: 'DELETE', path: `/v1/domains/${enc(domain)}` }),
  verify: (domain: PathParams<'/v1/domains/{domain}/verify', 'post'>['domain']) =>
    request<Ok<'/v1/domains/{domain}/verify', 'post'>>({ method: 'POST', path: `/v1/domains/${enc(domain)}/verify`, resendable: true }),
  setFromName: (domain: PathParams<'/v1/domains/{domain}/from-name', 'put'>['domain'], body: Body<'/v1/domains/{domain}/from-name', 'put'>) =>
    request<Ok<'/v1/domains/{domain}/from-name', 'put'>>({ method: 'PUT', path: `/v1/domains/${enc(domain)}/from-name`, body }),
  /** The DNS setup guide for the domain's DNS provider. */
  dnsSetup: (domain: PathParams<'/v1/domains/{domain}/dns-setup', 'get'>['domain']) =>
    request<Ok<'/v1/domains/{domain}/dns-setup', 'get'>>({ method: 'GET', path: `/v1/domains/${enc(domain)}/dns-setup` }),
  /** The records as a zone file fragment (text). */
  zoneFile: (domain: PathParams<'/v1/domains/{domain}/dns-setup/zonefile', 'get'>['domain']) =>
    request<Ok<'/v1/domains/{domain}/dns-setup/zonefile', 'get'>>({ method: 'GET', path: `/v1/domains/${enc(domain)}/dns-setup/zonefile` }),
  bimi: {
    get: (domain: PathParams<'/v1/domains/{domain}/bimi', 'get'>['domain']) =>
      request<Ok<'/v1/domains/{domain}/bimi', 'get'>>({ method: 'GET', path: `/v1/domains/${enc(domain)}/bimi` }),
    setLogoUrl: (domain: PathParams<'/v1/domains/{domain}/bimi', 'put'>['domain'], body: Body<'/v1/domains/{domain}/bimi', 'put'>) =>
      request<Ok<'/v1/domains/{domain}/bimi', 'put'>>({ method: 'PUT', path: `/v1/domains/${enc(domain)}/bimi`, body }),
    /** Uploads an SVG Tiny PS logo (at most 1 MiB), served from this API for mailbox providers. */
    uploadLogo: (domain: PathParams<'/v1/domains/{domain}/bimi/logo', 'post'>['domain'], svg: string | Blob) => {
      const form = new FormData();
      form.append('file', typeof svg === 'string' ? new Blob([svg], { type: 'image/svg+xml' }) : svg, 'logo.svg');
      return request<Ok<'/v1/domains/{domain}/bimi/logo', 'post'>>({ method: 'POST', path: `/v1/domains/${enc(domain)}/bimi/logo`, body: form, resendable: true });
    },
  },
});
