/**
 * Alert secrets at rest: AES-256-GCM with a 256-bit key, a fresh 96-bit nonce per value, and the
 * alert id as associated data (a ciphertext copied onto another alert does not decrypt). The key
 * comes from SECRETS_KEY (64 hex characters or 44 base64), or, on the embedded database only, from
 * a key file generated in the data directory on first use (mode 0600). With a Postgres server and
 * no SECRETS_KEY, alerts without secrets work and storing a secret is refused with a clear error.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';
import { AppError } from '../platform/errors.ts';
import { type AlertSecrets, SECRET_NAMES, type SecretName } from './alert.model.ts';

/**
 * Each secret's name inside the sealed value and in `secret_fields`: the field that carries it in
 * the wire alert (stored values keep these names).
 */
export const SEALED_NAME: Readonly<Record<SecretName, string>> = {
  smtpPassword: 'smtp_password',
  botToken: 'bot_token',
  authToken: 'auth_token',
  signingSecret: 'signing_secret',
  slackWebhookUrl: 'slack_webhook_url',
  discordWebhookUrl: 'discord_webhook_url',
  teamsWebhookUrl: 'teams_webhook_url',
  pagerdutyRoutingKey: 'pagerduty_routing_key',
};

/** The secrets a sealed value holds, as sealed. */
const sealedSchema = z.object({
  smtp_password: z.string().optional(),
  bot_token: z.string().optional(),
  auth_token: z.string().optional(),
  signing_secret: z.string().optional(),
  slack_webhook_url: z.string().optional(),
  discord_webhook_url: z.string().optional(),
  teams_webhook_url: z.string().optional(),
  pagerduty_routing_key: z.string().optional(),
});

/** The secrets named by a stored list of sealed names (unknown names are not ours: ignored). */
export function secretNamesOf(sealed: readonly string[]): SecretName[] {
  return SECRET_NAMES.filter((name) => sealed.includes(SEALED_NAME[name]));
}

const VERSION = 'v1';

export class SecretsKeyMissingError extends AppError {
  constructor() {
    super(
      'SECRETS_KEY_REQUIRED',
      'this alert holds a secret (a password or token) and SECRETS_KEY is not set: set SECRETS_KEY (32 random bytes, hex or base64) to store secrets on a Postgres server',
    );
  }
}

export function parseSecretsKey(value: string): Buffer {
  const trimmed = value.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(trimmed)
    ? Buffer.from(trimmed, 'hex')
    : Buffer.from(trimmed, 'base64');
  if (key.length !== 32)
    throw new Error('SECRETS_KEY must be 32 bytes: 64 hex characters or 44 base64 characters');
  return key;
}

/** The key file on the embedded database: read, or created with a random key. */
export function keyFromFile(path: string): Buffer {
  if (existsSync(path)) return parseSecretsKey(readFileSync(path, 'utf8'));
  mkdirSync(dirname(path), { recursive: true });
  const key = randomBytes(32);
  // `wx`: two processes racing to create it do not overwrite each other's key.
  try {
    writeFileSync(path, `${key.toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST')
      return parseSecretsKey(readFileSync(path, 'utf8'));
    throw error;
  }
  chmodSync(path, 0o600);
  return key;
}

export class SecretBox {
  readonly #key: Buffer | undefined;

  constructor(key: Buffer | undefined) {
    this.#key = key;
  }

  get available(): boolean {
    return this.#key !== undefined;
  }

  /** A short, non-reversible fingerprint of the key (to tell which key sealed a value in logs). */
  get keyId(): string | null {
    return this.#key ? createHash('sha256').update(this.#key).digest('hex').slice(0, 8) : null;
  }

  /** Null when there is nothing to keep. */
  seal(alertId: string, secrets: AlertSecrets): string | null {
    const present: Record<string, string> = {};
    for (const name of SECRET_NAMES) {
      const value = secrets[name];
      if (typeof value === 'string') present[SEALED_NAME[name]] = value;
    }
    if (Object.keys(present).length === 0) return null;
    if (!this.#key) throw new SecretsKeyMissingError();
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#key, nonce);
    cipher.setAAD(Buffer.from(alertId));
    const body = Buffer.concat([cipher.update(JSON.stringify(present), 'utf8'), cipher.final()]);
    return [
      VERSION,
      nonce.toString('base64'),
      cipher.getAuthTag().toString('base64'),
      body.toString('base64'),
    ].join('.');
  }

  open(alertId: string, sealed: string | null): AlertSecrets {
    if (sealed === null) return {};
    if (!this.#key) throw new SecretsKeyMissingError();
    const [version, nonce, tag, body] = sealed.split('.');
    if (version !== VERSION || !nonce || !tag || body === undefined)
      throw new Error('unreadable sealed secrets');
    const decipher = createDecipheriv('aes-256-gcm', this.#key, Buffer.from(nonce, 'base64'));
    decipher.setAAD(Buffer.from(alertId));
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    try {
      const text = Buffer.concat([decipher.update(Buffer.from(body, 'base64')), decipher.final()]).toString(
        'utf8',
      );
      return secretsOfSealed(sealedSchema.parse(JSON.parse(text)));
    } catch {
      throw new AppError(
        'SECRETS_UNREADABLE',
        `the secrets of alert ${alertId} cannot be decrypted with this SECRETS_KEY (was the key changed?)`,
      );
    }
  }
}

function secretsOfSealed(sealed: z.output<typeof sealedSchema>): AlertSecrets {
  return {
    ...(sealed.smtp_password !== undefined ? { smtpPassword: sealed.smtp_password } : {}),
    ...(sealed.bot_token !== undefined ? { botToken: sealed.bot_token } : {}),
    ...(sealed.auth_token !== undefined ? { authToken: sealed.auth_token } : {}),
    ...(sealed.signing_secret !== undefined ? { signingSecret: sealed.signing_secret } : {}),
    ...(sealed.slack_webhook_url !== undefined ? { slackWebhookUrl: sealed.slack_webhook_url } : {}),
    ...(sealed.discord_webhook_url !== undefined ? { discordWebhookUrl: sealed.discord_webhook_url } : {}),
    ...(sealed.teams_webhook_url !== undefined ? { teamsWebhookUrl: sealed.teams_webhook_url } : {}),
    ...(sealed.pagerduty_routing_key !== undefined
      ? { pagerdutyRoutingKey: sealed.pagerduty_routing_key }
      : {}),
  };
}
