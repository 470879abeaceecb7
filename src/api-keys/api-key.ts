import { createHash, randomBytes, randomInt } from 'node:crypto';

/**
 * API key secrets: `vgl_<prefix>_<secret>`. The prefix is 8 lowercase letters or digits, public and
 * stored, so a key can be recognised in a listing (and by secret scanners, with the `vgl_` tag);
 * the rest is 32 random bytes in base64url (43 characters), which is what makes the key unguessable.
 */
export const API_KEY_TAG = 'vgl_';
export const API_KEY_PREFIX_LENGTH = 8;
const PREFIX_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
const SECRET_BYTES = 32;
const API_KEY_PATTERN = /^vgl_[a-z0-9]{8}_[A-Za-z0-9_-]{43}$/;

export interface GeneratedApiKey {
  /** The whole key: given to its holder once, never stored. */
  readonly secret: string;
  /** The public part between `vgl_` and the secret. */
  readonly prefix: string;
  /** What is stored (see `hashApiKey`). */
  readonly hash: string;
}

export function generateApiKey(): GeneratedApiKey {
  let prefix = '';
  for (let i = 0; i < API_KEY_PREFIX_LENGTH; i++)
    prefix += PREFIX_ALPHABET[randomInt(PREFIX_ALPHABET.length)];
  const secret = `${API_KEY_TAG}${prefix}_${randomBytes(SECRET_BYTES).toString('base64url')}`;
  return { secret, prefix, hash: hashApiKey(secret) };
}

/**
 * SHA-256 of the whole key, in hex. A slow password hash (bcrypt, scrypt, argon2) exists to make
 * guessing low-entropy passwords from a stolen hash expensive; a key carries 256 random bits, which
 * no amount of guessing recovers from its hash, however fast the hash. A fast, unsalted digest costs
 * about a microsecond per request instead of tens of milliseconds, and lets a presented key be
 * found by an indexed lookup of its digest.
 */
export function hashApiKey(secret: string): string {
  return sha256(secret).toString('hex');
}

export function sha256(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/** Whether `value` has the shape of a key Vigil issues (so anything else needs no database lookup). */
export function looksLikeApiKey(value: string): boolean {
  return API_KEY_PATTERN.test(value);
}

/** How a key is shown to people who may not see its secret: `vgl_<prefix>_…`. */
export function displayPrefix(prefix: string): string {
  return `${API_KEY_TAG}${prefix}_`;
}
