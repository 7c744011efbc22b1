// POST /v1/validate: syntax, then whether the domain takes mail (MX, A or AAAA).
import { domainOf, isValidAddress, normalizeAddress } from '../../formats/address';
import { ApiError, RetryableError } from '../../errors';
import type { Dns } from '../../ports/dns';
import type { Validation } from './schemas';

export type { Validation };

export async function validateAddress(deps: { dns: Dns; config: { validationEnabled: boolean } }, email: string): Promise<Validation> {
  if (!deps.config.validationEnabled) throw new ApiError('validation_not_configured', 'address validation is not enabled in this deployment');
  const address = normalizeAddress(email);
  if (!isValidAddress(address)) return { email: address, valid: false, reason: 'invalid_syntax' };
  try {
    return (await deps.dns.acceptsMail(domainOf(address)))
      ? { email: address, valid: true, reason: '' }
      : { email: address, valid: false, reason: 'no_mail_records' };
  } catch (error) {
    if (error instanceof RetryableError) return { email: address, valid: false, reason: 'dns_unavailable' };
    throw error;
  }
}
