// The secret box seals the signing secrets of webhooks and inbound routes under the deployment's
// `data-encryption-key`. In AWS that secret is what Secrets Manager generates from the stack's
// GenerateSecretString, not base64 key bytes (issue 30): the box must take it as it comes, and
// what the first format sealed under a base64 key locally must still open.
import { beforeAll, describe, expect, it } from 'vitest';
import { AppStack } from '../../lib/app-stack';
import { generateSecretString, type GenerateSecretStringSpec } from '../../rehearsal/secrets';
import { open, seal } from '../../shared/crypto/secret-box';
import { testApp } from '../support/cdk';

/** The data key as the stack asks Secrets Manager to generate it, read from the synthesized template. */
let spec: GenerateSecretStringSpec;

beforeAll(() => {
  const app = testApp();
  const stack = new AppStack(app, 'Postbox-secret-box', { stage: 'test' });
  const resources = app.synth().getStackByName(stack.stackName).template.Resources as Record<string, { Type: string; Properties: Record<string, unknown> }>;
  const secret = Object.values(resources).find((r) => r.Type === 'AWS::SecretsManager::Secret' && String(r.Properties.Description).includes(': data-encryption-key ('));
  if (!secret) throw new Error('the template has no data-encryption-key secret');
  spec = secret.Properties.GenerateSecretString as GenerateSecretStringSpec;
});

/** Sealed by the first format (v1) under the base64 key below, for the context below; kept as written then. */
const V1_KEY = 'BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc=';
const V1_SEALED = 'v1.UtsfoIwmJdDPahvi.PvEA8flnsWcnfVqrcjSRMGU72ylwPw.wLEXNrGD3k2L_9PtvIzUjw';
const V1_CONTEXT = 'wh_01HQZX3Y8V2K6N4M9P7R5T1W3E';

describe('the secret box', () => {
  it('seals and opens under a data key exactly as Secrets Manager generates it from the template', () => {
    // Prepare: the stack's spec (64 letters and digits, no punctuation) and a secret made by its rules.
    expect(spec).toMatchObject({ PasswordLength: 64, ExcludePunctuation: true });
    const generated = generateSecretString(spec);
    expect(generated).toMatch(/^[A-Za-z0-9]{64}$/);
    // Act
    const sealed = seal(generated, 'whsec_signing-secret', 'wh_1');
    // Assert
    expect(sealed.startsWith('v2.')).toBe(true);
    expect(open(generated, sealed, 'wh_1')).toBe('whsec_signing-secret');
  });

  it('still opens what the first format sealed under a base64 key of 32 bytes', () => {
    expect(open(V1_KEY, V1_SEALED, V1_CONTEXT)).toBe('whsec_0123456789abcdef');
  });

  it('seals anew under the same base64 key in the new format, which opens too', () => {
    const sealed = seal(V1_KEY, 'rotated', V1_CONTEXT);
    expect(sealed.startsWith('v2.')).toBe(true);
    expect(open(V1_KEY, sealed, V1_CONTEXT)).toBe('rotated');
  });

  it('opens nothing under another key or for another item', () => {
    const key = generateSecretString(spec);
    const sealed = seal(key, 'secret', 'wh_1');
    expect(() => open(generateSecretString(spec), sealed, 'wh_1')).toThrow();
    expect(() => open(key, sealed, 'wh_2')).toThrow();
    expect(() => open(V1_KEY, V1_SEALED, 'wh_other')).toThrow();
  });

  it('refuses a first-format value under a key that is not base64 of 32 bytes, and a key too short to be one', () => {
    expect(() => open(generateSecretString(spec), V1_SEALED, V1_CONTEXT)).toThrow(/base64 data encryption key of 32 bytes/);
    expect(() => seal('short', 'secret', 'wh_1')).toThrow(/at least 32 characters/);
  });

  it('refuses what is not a sealed value', () => {
    for (const bad of ['', 'v2', 'v3.a.b.c', 'v2.a.b', 'v2.a.b.c.d']) expect(() => open(V1_KEY, bad, 'wh_1')).toThrow('not a sealed secret');
  });
});

describe('GenerateSecretString as Secrets Manager applies it', () => {
  it('defaults to 32 characters of every type, at least one of each', () => {
    const value = generateSecretString({});
    expect(value).toHaveLength(32);
    for (const type of [/[A-Z]/, /[a-z]/, /[0-9]/, /[^A-Za-z0-9 ]/]) expect(value).toMatch(type);
    expect(value).not.toContain(' ');
  });

  it('leaves out excluded characters and types, and adds the space only when asked', () => {
    const value = generateSecretString({ PasswordLength: 200, ExcludeCharacters: 'abcABC012', ExcludePunctuation: true, IncludeSpace: true });
    expect(value).toMatch(/^[D-Zd-z3-9 ]{200}$/);
    expect(value).toContain(' ');
    expect(generateSecretString({ PasswordLength: 50, ExcludeUppercase: true, ExcludeLowercase: true, ExcludePunctuation: true })).toMatch(/^[0-9]{50}$/);
  });

  it('puts the password under GenerateStringKey in the template JSON', () => {
    const value = JSON.parse(generateSecretString({ SecretStringTemplate: '{"username":"postbox"}', GenerateStringKey: 'password', PasswordLength: 20 })) as Record<string, string>;
    expect(value.username).toBe('postbox');
    expect(value.password).toHaveLength(20);
  });

  it('refuses what Secrets Manager refuses', () => {
    expect(() => generateSecretString({ PasswordLength: 2 })).toThrow(/one character of each/);
    expect(() => generateSecretString({ PasswordLength: 0 })).toThrow(/PasswordLength/);
    expect(() => generateSecretString({ GenerateStringKey: 'password' })).toThrow(/go together/);
    expect(() => generateSecretString({ ExcludeUppercase: true, ExcludeLowercase: true, ExcludeNumbers: true, ExcludePunctuation: true })).toThrow(/no character/);
  });
});
