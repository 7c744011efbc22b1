// loadSecrets against a mocked Secrets Manager, and staticSecrets on its own.
import { GetSecretValueCommand, ResourceNotFoundException, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadSecrets } from '../../shared/adapters/aws/secrets-manager';
import { staticSecrets } from '../../shared/adapters/static-secrets';

const CURSOR_ARN = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:cursor-signing-key-AbCdEf';
const STAFF_ARN = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:staff-token-GhIjKl';

const mockSecretsManager = (client: SecretsManagerClient) => mockClient(client);

describe('loadSecrets', () => {
  let client: SecretsManagerClient;
  let mock: ReturnType<typeof mockSecretsManager>;

  beforeEach(() => {
    client = new SecretsManagerClient({
      region: 'us-east-1',
      endpoint: 'http://127.0.0.1:9',
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
      maxAttempts: 1,
    });
    mock = mockSecretsManager(client);
  });

  afterEach(() => {
    mock.restore();
    client.destroy();
  });

  it('reads each granted secret by its ARN and returns the values by name', async () => {
    // Prepare
    mock.on(GetSecretValueCommand, { SecretId: CURSOR_ARN }).resolves({ SecretString: 'cursor-value' });
    mock.on(GetSecretValueCommand, { SecretId: STAFF_ARN }).resolves({ SecretString: 'staff-value' });

    // Act
    const secrets = await loadSecrets(client, { 'cursor-signing-key': CURSOR_ARN, 'staff-token': STAFF_ARN });

    // Assess
    expect(secrets.get('cursor-signing-key')).toBe('cursor-value');
    expect(secrets.get('staff-token')).toBe('staff-value');
    expect(mock.commandCalls(GetSecretValueCommand).map((c) => c.args[0].input.SecretId).sort()).toEqual([CURSOR_ARN, STAFF_ARN].sort());
  });

  it('reads only the secrets it was granted, and get of another name throws', async () => {
    // Prepare
    mock.on(GetSecretValueCommand, { SecretId: STAFF_ARN }).resolves({ SecretString: 'staff-value' });

    // Act
    const secrets = await loadSecrets(client, { 'staff-token': STAFF_ARN });

    // Assess
    expect(mock.commandCalls(GetSecretValueCommand)).toHaveLength(1);
    expect(secrets.get('staff-token')).toBe('staff-value');
    expect(() => secrets.get('cursor-signing-key')).toThrow(/cursor-signing-key/);
  });

  it('rejects when a secret has no string value', async () => {
    // Prepare
    mock.on(GetSecretValueCommand, { SecretId: CURSOR_ARN }).resolves({ SecretBinary: new Uint8Array([1, 2, 3]) });
    mock.on(GetSecretValueCommand, { SecretId: STAFF_ARN }).resolves({ SecretString: 'staff-value' });

    // Act
    const result = loadSecrets(client, { 'cursor-signing-key': CURSOR_ARN, 'staff-token': STAFF_ARN });

    // Assess
    await expect(result).rejects.toThrow(/cursor-signing-key/);
  });

  it('rejects with the service error when a secret cannot be read', async () => {
    // Prepare
    const missing = new ResourceNotFoundException({ message: 'Secrets Manager can’t find the specified secret.', $metadata: {} });
    mock.on(GetSecretValueCommand).rejects(missing);

    // Act
    const result = loadSecrets(client, { 'staff-token': STAFF_ARN });

    // Assess
    await expect(result).rejects.toBe(missing);
  });
});

describe('staticSecrets', () => {
  it('returns a granted value', () => {
    // Prepare
    const secrets = staticSecrets({ 'staff-token': 'local-staff' });

    // Act
    const value = secrets.get('staff-token');

    // Assess
    expect(value).toBe('local-staff');
  });

  it('throws for a name it was not given, naming the secret', () => {
    // Prepare
    const secrets = staticSecrets({ 'staff-token': 'local-staff' });

    // Act
    const read = () => secrets.get('cursor-signing-key');

    // Assess
    expect(read).toThrow(/cursor-signing-key/);
  });
});
