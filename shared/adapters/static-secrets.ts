// Secrets held in memory: the local runtime's (DATA_DIR/secrets.json) and the tests'.
import { type SecretName } from '../platform';
import type { Secrets } from '../ports/secrets';

export function staticSecrets(values: Partial<Record<SecretName, string>>): Secrets {
  return {
    get(name) {
      const value = values[name];
      if (value === undefined) throw new Error(`secret ${name} is not available to this function`);
      return value;
    },
  };
}
