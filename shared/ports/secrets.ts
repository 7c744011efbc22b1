import { type SecretName } from '../platform';

export interface Secrets {
  /** The secret's value; throws when the function was not granted it. */
  get(name: SecretName): string;
}
