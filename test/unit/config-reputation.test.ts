// The operator's reputation levels (REPUTATION_*): the defaults when unset, other levels when set,
// and settings that make no sense refuse to start, locally and at a Lambda's cold start alike.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { getContainer } from '../../shared/runtime/container';
import { defaultPolicy } from '../../shared/billing/reputation/policy';
import { ConfigError, readAwsConfig, readLocalSettings, readReputationPolicy } from '../../shared/runtime/config';

const levels = {
  REPUTATION_WARN_BOUNCE_RATE: '0.02',
  REPUTATION_WARN_COMPLAINT_RATE: '0.0005',
  REPUTATION_PAUSE_BOUNCE_RATE: '0.05',
  REPUTATION_PAUSE_COMPLAINT_RATE: '0.001',
  REPUTATION_MIN_SENDS: '50',
};
const expected = { windowHours: 168, warnBounceRate: 0.02, warnComplaintRate: 0.0005, pauseBounceRate: 0.05, pauseComplaintRate: 0.001, minSends: 50 };

describe('reputation levels', () => {
  it('are the defaults when unset or empty, locally and in AWS', () => {
    expect(readLocalSettings({}).reputation).toEqual(defaultPolicy);
    expect(readAwsConfig({ TABLE_NAME: 't', REPUTATION_MIN_SENDS: ' ' }).reputation).toEqual(defaultPolicy);
    expect(defaultPolicy).toMatchObject({ warnBounceRate: 0.04, warnComplaintRate: 0.0008, pauseBounceRate: 0.08, pauseComplaintRate: 0.003, minSends: 200 });
  });

  it('are read from the environment, locally and in AWS', () => {
    expect(readLocalSettings(levels).reputation).toEqual(expected);
    expect(readAwsConfig({ TABLE_NAME: 't', ...levels }).reputation).toEqual(expected);
    // One level alone keeps the others' defaults.
    expect(readReputationPolicy({ REPUTATION_PAUSE_COMPLAINT_RATE: '0.002' })).toEqual({ ...defaultPolicy, pauseComplaintRate: 0.002 });
  });

  it.each([
    [{ REPUTATION_PAUSE_BOUNCE_RATE: '0.02', REPUTATION_WARN_BOUNCE_RATE: '0.03' }, /REPUTATION_PAUSE_BOUNCE_RATE \(0\.02\) is below REPUTATION_WARN_BOUNCE_RATE \(0\.03\)/],
    // Against the other level's default: warning at 0.5% complaints is above the default pause (0.3%).
    [{ REPUTATION_WARN_COMPLAINT_RATE: '0.005' }, /REPUTATION_PAUSE_COMPLAINT_RATE \(0\.003\) is below REPUTATION_WARN_COMPLAINT_RATE \(0\.005\)/],
    [{ REPUTATION_PAUSE_BOUNCE_RATE: '8' }, /REPUTATION_PAUSE_BOUNCE_RATE: expected a rate above 0 and at most 1 \(0\.05 is 5%\), got "8"/],
    [{ REPUTATION_WARN_BOUNCE_RATE: '-0.1' }, /REPUTATION_WARN_BOUNCE_RATE: expected a rate above 0/],
    [{ REPUTATION_WARN_COMPLAINT_RATE: '0' }, /REPUTATION_WARN_COMPLAINT_RATE: expected a rate above 0/],
    [{ REPUTATION_PAUSE_COMPLAINT_RATE: 'lots' }, /REPUTATION_PAUSE_COMPLAINT_RATE: expected a rate/],
    [{ REPUTATION_MIN_SENDS: '0' }, /REPUTATION_MIN_SENDS: expected a whole number of at least 1, got "0"/],
    [{ REPUTATION_MIN_SENDS: '12.5' }, /REPUTATION_MIN_SENDS: expected a whole number/],
  ])('refuse to start with a clear message: %j', (env, message) => {
    for (const read of [() => readLocalSettings(env), () => readAwsConfig({ TABLE_NAME: 't', ...env })]) {
      expect(read).toThrow(ConfigError);
      expect(read).toThrow(/^invalid reputation configuration: /);
      expect(read).toThrow(message);
    }
  });

  it('name every problem at once', () => {
    expect(() => readReputationPolicy({ REPUTATION_MIN_SENDS: 'x', REPUTATION_WARN_BOUNCE_RATE: '2' })).toThrow(/REPUTATION_WARN_BOUNCE_RATE: .*; REPUTATION_MIN_SENDS: /);
  });
});

describe('a start with levels that make no sense', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('fails the Lambda cold start with the message', async () => {
    vi.stubEnv('RUNTIME', 'aws');
    vi.stubEnv('TABLE_NAME', 'postbox-test');
    vi.stubEnv('REPUTATION_PAUSE_BOUNCE_RATE', '0.01');
    // A handler awaits it on each invocation until it is built: every invocation fails with the message.
    await expect(async () => getContainer()).rejects.toThrow(/invalid reputation configuration: REPUTATION_PAUSE_BOUNCE_RATE \(0\.01\) is below REPUTATION_WARN_BOUNCE_RATE \(0\.04\)/);
  });

  it('stops `npm start` before it starts anything: exit code 2 and the message', async () => {
    const root = fileURLToPath(new URL('../../', import.meta.url));
    // No DATA_DIR is ever made: the settings are read first.
    const child = spawn(process.execPath, ['--import', 'tsx', 'bin/local.ts'], {
      cwd: root,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: '/nonexistent/postbox-reputation-test', REPUTATION_MIN_SENDS: 'none' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(2);
    expect(err).toContain('invalid reputation configuration: REPUTATION_MIN_SENDS: expected a whole number of at least 1, got "none"');
  });
});
