/** The mail provider's record of a sending domain (SES v2 email identities with Easy DKIM). */
export interface SendingIdentities {
  /** Creates the identity with a custom MAIL FROM domain; resolves with its 3 DKIM tokens. */
  create(domain: string, mailFromDomain: string): Promise<{ dkimTokens: string[] }>;
  /** Removes the identity; absent identities are not an error. */
  remove(domain: string): Promise<void>;
}
