import {
  AlreadyExistsException,
  CreateEmailIdentityCommand,
  DeleteEmailIdentityCommand,
  GetEmailIdentityCommand,
  NotFoundException,
  PutEmailIdentityMailFromAttributesCommand,
  type SESv2Client,
} from '@aws-sdk/client-sesv2';
import { ApiError, RetryableError } from '../../errors';
import type { SendingIdentities } from '../../ports/identities';

/** SES v2 email identities with Easy DKIM and a custom MAIL FROM domain. */
export class SesIdentities implements SendingIdentities {
  constructor(private readonly client: SESv2Client) {}

  async create(domain: string, mailFromDomain: string): Promise<{ dkimTokens: string[] }> {
    let tokens: string[] | undefined;
    try {
      const out = await this.client.send(new CreateEmailIdentityCommand({ EmailIdentity: domain }));
      tokens = out.DkimAttributes?.Tokens;
    } catch (error) {
      // Left behind by an earlier attempt that failed after SES created it: reuse it.
      if (!(error instanceof AlreadyExistsException)) throw translate(error, domain);
      const existing = await this.client.send(new GetEmailIdentityCommand({ EmailIdentity: domain }));
      tokens = existing.DkimAttributes?.Tokens;
    }
    try {
      await this.client.send(
        new PutEmailIdentityMailFromAttributesCommand({ EmailIdentity: domain, MailFromDomain: mailFromDomain, BehaviorOnMxFailure: 'USE_DEFAULT_VALUE' }),
      );
    } catch (error) {
      throw translate(error, domain);
    }
    if (!tokens || tokens.length === 0) throw new RetryableError(`SES returned no DKIM tokens for ${domain}`);
    return { dkimTokens: tokens };
  }

  async remove(domain: string): Promise<void> {
    try {
      await this.client.send(new DeleteEmailIdentityCommand({ EmailIdentity: domain }));
    } catch (error) {
      if (error instanceof NotFoundException) return;
      throw translate(error, domain);
    }
  }
}

/** SES's own words stay in the logs; the caller gets our envelope. */
function translate(error: unknown, domain: string): Error {
  const name = (error as { name?: string }).name ?? '';
  if (name === 'BadRequestException' || name === 'InvalidParameterValue') {
    return new ApiError('invalid_request', `domain: the provider refused ${domain} as a sending domain`, { cause: error });
  }
  if (name === 'LimitExceededException') {
    return new ApiError('domain_limit_reached', 'the deployment has reached its provider limit of sending domains', { cause: error });
  }
  return new RetryableError(`provider call for ${domain} failed: ${name}`, { cause: error });
}
