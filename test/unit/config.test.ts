import { describe, expect, it } from 'vitest';
import { defaultPolicy } from '../../shared/billing/reputation/policy';
import { ConfigError, oauthSettingsOf, publicBaseUrlOf, readAwsConfig, readLocalSettings, readRuntimeKind } from '../../shared/runtime/config';

describe('readLocalSettings', () => {
  it('defaults to 127.0.0.1:3000 with data in ./.data', () => {
    expect(readLocalSettings({})).toMatchObject({ host: '127.0.0.1', port: 3000, dataDir: './.data', sesPort: 8005, logLevel: 'info' });
  });

  it('reads every variable', () => {
    const s = readLocalSettings({ HOST: '0.0.0.0', PORT: '8080', DATA_DIR: '/tmp/x', SES_PORT: '0', DYNAMODB_ENDPOINT: 'http://127.0.0.1:9', LOG_LEVEL: 'warn', SCHEDULER_TICK_MS: '250', QUEUE_RETRY_DELAY_SECONDS: '0', SHARED_EMAIL_SENDER: 'a@b.c', INBOUND_ENABLED: 'false', INBOUND_SMTP_PORT: '0', INBOUND_MAX_BYTES: '4096' });
    expect(s).toEqual({ host: '0.0.0.0', port: 8080, dataDir: '/tmp/x', sesPort: 0, dynamodbEndpoint: 'http://127.0.0.1:9', logLevel: 'warn', schedulerTickMs: 250, queueRetryDelaySeconds: 0, sharedEmailSender: 'a@b.c', dnsServers: [], validationEnabled: true, emailCostMicros: 100, accountEmail: 'you@example.com', webhookAllowPrivate: false, inboundEnabled: false, inboundSmtpPort: 0, inboundMaxBytes: 4096, stripeSecrets: {}, billing: { prices: {} }, oauth: {}, oauthSecrets: {}, reputation: defaultPolicy });
  });

  it.each([{ PORT: 'http' }, { PORT: '70000' }, { LOG_LEVEL: 'loud' }, { DYNAMODB_ENDPOINT: 'not a url' }, { INBOUND_SMTP_PORT: '70000' }, { INBOUND_MAX_BYTES: String(40 * 1024 * 1024 + 1) }, { INBOUND_ENABLED: 'maybe' }])('rejects %j with a ConfigError naming it', (env) => {
    expect(() => readLocalSettings(env)).toThrow(ConfigError);
    expect(() => readLocalSettings(env)).toThrow(Object.keys(env)[0] as string);
  });
});

describe('readAwsConfig', () => {
  it('reads the variables the stack sets', () => {
    const config = readAwsConfig({
      TABLE_NAME: 't',
      AWS_REGION: 'eu-west-1',
      QUEUE_URL_SEND: 'https://sqs/send',
      QUEUE_ARN_SES_EVENTS: 'arn:aws:sqs:eu-west-1:1:events',
      SECRET_ARN_STAFF_TOKEN: 'arn:secret',
      SCHEDULER_GROUP_NAME: 'g',
      SCHEDULER_ROLE_ARN: 'arn:role',
    });
    expect(config).toMatchObject({
      runtime: 'aws',
      region: 'eu-west-1',
      tableName: 't',
      queueUrls: { send: 'https://sqs/send' },
      queueArns: { 'ses-events': 'arn:aws:sqs:eu-west-1:1:events' },
      secrets: { kind: 'aws', arns: { 'staff-token': 'arn:secret' } },
      scheduler: { kind: 'aws', groupName: 'g', roleArn: 'arn:role' },
    });
  });

  it('reads the stage the stack set (STAGE), the dimension of the service\'s metrics; none when unset', () => {
    expect(readAwsConfig({ TABLE_NAME: 't', STAGE: 'prod' }).stage).toBe('prod');
    expect(readAwsConfig({ TABLE_NAME: 't' }).stage).toBeUndefined();
  });

  it('fails loudly without a table', () => {
    expect(() => readAwsConfig({})).toThrow(/TABLE_NAME/);
  });
});

describe('PUBLIC_BASE_URL', () => {
  it('is unset locally unless given, so the runtime uses its own http://HOST:PORT', () => {
    expect(readLocalSettings({}).publicBaseUrl).toBeUndefined();
  });

  it.each([
    ['https://mail.example.com', 'https://mail.example.com'],
    ['https://mail.example.com/', 'https://mail.example.com'],
    ['  http://localhost:3000  ', 'http://localhost:3000'],
    ['https://example.com/postbox/', 'https://example.com/postbox'],
    ['HTTPS://Mail.Example.COM', 'https://mail.example.com'],
  ])('reads %j as the origin %j, locally and in AWS', (value, origin) => {
    expect(readLocalSettings({ PUBLIC_BASE_URL: value }).publicBaseUrl).toBe(origin);
    expect(readAwsConfig({ TABLE_NAME: 't', PUBLIC_BASE_URL: value }).publicBaseUrl).toBe(origin);
  });

  it.each(['javascript://evil', 'ftp://example.com', 'example.com', 'https://user:pw@example.com', 'https://example.com/?a=1', 'https://example.com/#x', ''])(
    'refuses %j with a ConfigError naming it',
    (value) => {
      expect(() => readLocalSettings({ PUBLIC_BASE_URL: value })).toThrow(ConfigError);
      expect(() => readLocalSettings({ PUBLIC_BASE_URL: value })).toThrow(/PUBLIC_BASE_URL/);
      expect(() => readAwsConfig({ TABLE_NAME: 't', PUBLIC_BASE_URL: value })).toThrow(/PUBLIC_BASE_URL/);
    },
  );

  it('is optional in AWS (queue consumers make no links), and asking for it there fails loudly', () => {
    const config = readAwsConfig({ TABLE_NAME: 't' });
    expect(config.publicBaseUrl).toBeUndefined();
    expect(() => publicBaseUrlOf(config)).toThrow(/PUBLIC_BASE_URL is not configured/);
  });
});

describe('readRuntimeKind', () => {
  it('is aws only when RUNTIME says so (the stack sets it on every function)', () => {
    expect(readRuntimeKind({ RUNTIME: 'aws' })).toBe('aws');
    expect(readRuntimeKind({})).toBe('local');
    expect(readRuntimeKind({ RUNTIME: 'AWS ' })).toBe('local');
  });
});

describe('inbound settings', () => {
  it('are on locally unless INBOUND_ENABLED says otherwise, with the listener on 2525 (0 picks a port)', () => {
    expect(readLocalSettings({})).toMatchObject({ inboundEnabled: true, inboundSmtpPort: 2525 });
    expect(readLocalSettings({ INBOUND_ENABLED: 'false', INBOUND_SMTP_PORT: '0' })).toMatchObject({ inboundEnabled: false, inboundSmtpPort: 0 });
    expect(() => readLocalSettings({ INBOUND_ENABLED: 'maybe' })).toThrow(/INBOUND_ENABLED/);
  });

  it('are off in AWS unless the stack turns them on', () => {
    expect(readAwsConfig({ TABLE_NAME: 't' }).inboundEnabled).toBe(false);
    expect(readAwsConfig({ TABLE_NAME: 't', INBOUND_ENABLED: 'true' }).inboundEnabled).toBe(true);
  });
});

describe('OAuth settings', () => {
  it('reads each provider with a client id locally, its secret as a secret and its stand-in base URL', () => {
    const s = readLocalSettings({
      OAUTH_GITHUB_CLIENT_ID: ' gh-id ',
      OAUTH_GITHUB_CLIENT_SECRET: 'gh-secret',
      OAUTH_GITHUB_BASE_URL: 'http://127.0.0.1:9999/',
      OAUTH_GOOGLE_CLIENT_SECRET: 'google-secret-without-an-id',
    });
    expect(s.oauth).toEqual({ github: { clientId: 'gh-id', baseUrl: 'http://127.0.0.1:9999' } });
    expect(s.oauthSecrets).toEqual({ 'oauth-github-client-secret': 'gh-secret', 'oauth-google-client-secret': 'google-secret-without-an-id' });
  });

  it('refuses a base URL that is not http(s) with a ConfigError', () => {
    expect(() => readLocalSettings({ OAUTH_GOOGLE_BASE_URL: 'ftp://example.com' })).toThrow(ConfigError);
  });

  it('in AWS reads the client ids from the environment and never a base URL', () => {
    const env = { OAUTH_GOOGLE_CLIENT_ID: 'google-id', OAUTH_GOOGLE_BASE_URL: 'http://127.0.0.1:1', OAUTH_GITHUB_CLIENT_ID: '' };
    expect(oauthSettingsOf({ runtime: 'aws', oauth: { github: { clientId: 'ignored' } } }, env)).toEqual({ google: { clientId: 'google-id' } });
    expect(oauthSettingsOf({ runtime: 'local' }, env)).toEqual({});
  });
});
