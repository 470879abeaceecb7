import { createCipheriv, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { keyFromFile, parseSecretsKey, SEALED_NAME, SecretBox, secretNamesOf } from './secrets.ts';

describe('SecretBox', () => {
  const box = new SecretBox(randomBytes(32));

  it('seals and opens, with a fresh nonce each time and no plain text in the sealed value', () => {
    const a = box.seal('k1:alert', { botToken: '123:abc', signingSecret: 'shh' })!;
    const b = box.seal('k1:alert', { botToken: '123:abc', signingSecret: 'shh' })!;
    expect(a).not.toBe(b);
    expect(a).not.toMatch(/123:abc|shh/);
    expect(box.open('k1:alert', a)).toEqual({ botToken: '123:abc', signingSecret: 'shh' });
    expect(box.seal('k1:alert', { botToken: undefined })).toBeNull();
    expect(box.open('k1:alert', null)).toEqual({});
  });

  it('refuses a sealed value moved to another alert, or opened with another key', () => {
    const sealed = box.seal('k1:alert', { authToken: 't' })!;
    expect(() => box.open('k2:alert', sealed)).toThrow(/cannot be decrypted/);
    expect(() => new SecretBox(randomBytes(32)).open('k1:alert', sealed)).toThrow(/cannot be decrypted/);
  });

  it('without a key, refuses to seal a secret (and seals nothing fine)', () => {
    const none = new SecretBox(undefined);
    expect(none.seal('k1:a', {})).toBeNull();
    expect(() => none.seal('k1:a', { smtpPassword: 'p' })).toThrow(
      expect.objectContaining({ code: 'SECRETS_KEY_REQUIRED' }),
    );
  });
});

describe('sealed names', () => {
  it('stores each secret under the wire name of its field, in one order, and reads them back', () => {
    expect(Object.values(SEALED_NAME)).toEqual([
      'smtp_password',
      'bot_token',
      'auth_token',
      'signing_secret',
      'slack_webhook_url',
      'discord_webhook_url',
      'teams_webhook_url',
      'pagerduty_routing_key',
    ]);
    expect(secretNamesOf(['signing_secret', 'bot_token', 'not_ours'])).toEqual(['botToken', 'signingSecret']);
    // The chat services' webhook URLs carry their tokens: sealed like every other secret.
    const box = new SecretBox(randomBytes(32));
    const urls = {
      slackWebhookUrl: 'https://hooks.slack.com/services/T0/B0/x',
      discordWebhookUrl: 'https://discord.com/api/webhooks/1/y',
    };
    const sealed = box.seal('k1:alert', urls);
    expect(sealed).not.toContain('hooks.slack.com');
    expect(box.open('k1:alert', sealed)).toEqual(urls);
  });

  it('opens a stored value: AES-256-GCM over JSON with the wire names, the alert as associated data', () => {
    const key = randomBytes(32);
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, nonce);
    cipher.setAAD(Buffer.from('k1:alert'));
    const json = JSON.stringify({ smtp_password: 'p', auth_token: 't' });
    const body = Buffer.concat([cipher.update(json, 'utf8'), cipher.final()]);
    const tag = cipher.getAuthTag();
    const sealed = `v1.${nonce.toString('base64')}.${tag.toString('base64')}.${body.toString('base64')}`;
    expect(new SecretBox(key).open('k1:alert', sealed)).toEqual({
      smtpPassword: 'p',
      authToken: 't',
    });
  });
});

describe('keys', () => {
  it('reads 64 hex or 44 base64 characters, and nothing else', () => {
    const key = randomBytes(32);
    expect(parseSecretsKey(key.toString('hex'))).toEqual(key);
    expect(parseSecretsKey(key.toString('base64'))).toEqual(key);
    expect(() => parseSecretsKey('short')).toThrow(/32 bytes/);
  });

  it('generates a key file once, readable by its owner only, and reads it back', () => {
    const dir = mkdtempSync(join(tmpdir(), 'vigil-secrets-'));
    try {
      const path = join(dir, 'nested', 'secrets.key');
      const key = keyFromFile(path);
      expect(statSync(path).mode & 0o777).toBe(0o600);
      expect(keyFromFile(path)).toEqual(key);
      expect(readFileSync(path, 'utf8').trim()).toBe(key.toString('hex'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
