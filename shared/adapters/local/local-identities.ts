// The local stand-in for SES identities: Easy DKIM's three tokens, generated.
import { randomHex } from '../../crypto/crypto';
import type { SendingIdentities } from '../../ports/identities';

export class LocalIdentities implements SendingIdentities {
  async create(): Promise<{ dkimTokens: string[] }> {
    // SES tokens are 32 lower-case base32-ish characters; any DNS-label-safe string behaves alike.
    return { dkimTokens: Array.from({ length: 3 }, () => randomHex(16)) };
  }

  async remove(): Promise<void> {}
}
