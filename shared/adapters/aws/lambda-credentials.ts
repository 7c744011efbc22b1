// Stands in for @aws-sdk/credential-provider-node in the Lambda bundles (lib/bundling.ts aliases it
// here). Lambda puts the execution role's credentials in the environment, so of the SDK's default
// chain (environment, SSO, INI files, login, process, web identity, container and instance
// metadata) a function only ever reaches the first link; the others, with the STS, SSO and sign-in
// clients they carry, were a quarter of every bundle. This is that first link, the SDK's fromEnv,
// and like it reads process.env itself (it is SDK code, below config.ts). Unbundled (npm start,
// tests) the SDK clients run the SDK's own chain.

/** The SDK's AwsCredentialIdentity, spelled out: @aws-sdk/types is not a dependency of ours. */
export interface EnvCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  expiration?: Date;
  credentialScope?: string;
  accountId?: string;
}

export class LambdaCredentialsError extends Error {
  constructor() {
    super('AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set: this bundle takes its credentials from the Lambda environment only (lib/bundling.ts)');
    this.name = 'LambdaCredentialsError';
  }
}

/** The SDK clients call `defaultProvider(clientConfig)` once per client and memoize what it returns. */
export function defaultProvider(): () => Promise<EnvCredentials> {
  return async () => {
    const env = process.env;
    const accessKeyId = env.AWS_ACCESS_KEY_ID;
    const secretAccessKey = env.AWS_SECRET_ACCESS_KEY;
    if (!accessKeyId || !secretAccessKey) throw new LambdaCredentialsError();
    return {
      accessKeyId,
      secretAccessKey,
      ...(env.AWS_SESSION_TOKEN && { sessionToken: env.AWS_SESSION_TOKEN }),
      ...(env.AWS_CREDENTIAL_EXPIRATION && { expiration: new Date(env.AWS_CREDENTIAL_EXPIRATION) }),
      ...(env.AWS_CREDENTIAL_SCOPE && { credentialScope: env.AWS_CREDENTIAL_SCOPE }),
      ...(env.AWS_ACCOUNT_ID && { accountId: env.AWS_ACCOUNT_ID }),
    };
  };
}
