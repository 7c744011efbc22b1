// SES v2 email identities, which the SES emulator does not keep: the domain routes create, read
// and delete the identity of a registered domain (shared/adapters/aws/ses-identities.ts). Answered
// in the SES front, after its IAM check, as SES answers: an identity with three DKIM tokens, PENDING
// until DNS says otherwise (the rehearsal has no DNS: it stays PENDING).
import { randomBytes } from 'node:crypto';
import type { AwsCall } from './aws-front';

const IDENTITY_OPERATIONS = new Set(['CreateEmailIdentity', 'GetEmailIdentity', 'DeleteEmailIdentity', 'PutEmailIdentityMailFromAttributes']);

export function sesIdentities(): (call: AwsCall, path: string, request: Buffer) => { status: number; body: unknown } | undefined {
  const identities = new Map<string, string[]>();
  const view = (name: string, tokens: string[]) => ({ IdentityType: 'DOMAIN', VerifiedForSendingStatus: false, DkimAttributes: { SigningEnabled: true, Status: 'PENDING', Tokens: tokens } });
  const missing = (name: string) => ({ status: 404, body: { __type: 'NotFoundException', message: `Email identity ${name} does not exist.` } });
  return (call, path, request) => {
    if (call.service !== 'sesv2' || !IDENTITY_OPERATIONS.has(call.operation)) return undefined;
    const name = decodeURIComponent(path.split('?')[0]!.split('/')[4] ?? '') || String((JSON.parse(request.toString('utf8') || '{}') as { EmailIdentity?: string }).EmailIdentity ?? '');
    const tokens = identities.get(name);
    switch (call.operation) {
      case 'CreateEmailIdentity': {
        if (tokens) return { status: 409, body: { __type: 'AlreadyExistsException', message: `Email identity ${name} already exists.` } };
        const made = Array.from({ length: 3 }, () => randomBytes(16).toString('hex'));
        identities.set(name, made);
        return { status: 200, body: view(name, made) };
      }
      case 'GetEmailIdentity':
        return tokens ? { status: 200, body: view(name, tokens) } : missing(name);
      case 'DeleteEmailIdentity':
        return identities.delete(name) ? { status: 200, body: {} } : missing(name);
      default:
        return tokens ? { status: 200, body: {} } : missing(name);
    }
  };
}
