import { GetSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { type SecretName } from '../../platform';
import type { Secrets } from '../../ports/secrets';
import { staticSecrets } from '../static-secrets';

/** Reads every granted secret once per cold start. */
export async function loadSecrets(client: SecretsManagerClient, arns: Partial<Record<SecretName, string>>): Promise<Secrets> {
  const entries = await Promise.all(
    Object.entries(arns).map(async ([name, arn]) => {
      const out = await client.send(new GetSecretValueCommand({ SecretId: arn }));
      if (!out.SecretString) throw new Error(`secret ${name} has no string value`);
      return [name, out.SecretString] as const;
    }),
  );
  return staticSecrets(Object.fromEntries(entries));
}
