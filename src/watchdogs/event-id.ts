import { randomBytes } from 'node:crypto';
import type { Clock } from '../platform/clock.ts';

/**
 * Event ids in the ULID layout: 10 characters of milliseconds since the epoch (48 bits) and 16 of
 * randomness (80 bits), in Crockford's base32. They sort as text in the order they were made, so the
 * id alone is a keyset cursor and "newer than the last one seen" is a plain comparison; the random
 * part keeps ids made at the same millisecond on different instances apart.
 */
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const TIME_CHARS = 10;
const RANDOM_CHARS = 16;
export const EVENT_ID_LENGTH = TIME_CHARS + RANDOM_CHARS;
const MAX_TIME = 2 ** 48 - 1;
const RANDOM_MAX = (1n << 80n) - 1n;
const PATTERN = /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/;

export function isEventId(value: string): boolean {
  return PATTERN.test(value);
}

/** The millisecond an id was made at. */
export function eventIdTime(id: string): number {
  let ms = 0;
  for (const char of id.slice(0, TIME_CHARS)) ms = ms * 32 + ALPHABET.indexOf(char);
  return ms;
}

/** The smallest id that can be made at `ms`: every id made at or after `ms` sorts after or equal to it. */
export function lowestEventIdAt(ms: number): string {
  return encodeTime(Math.max(0, Math.min(MAX_TIME, Math.floor(ms)))) + '0'.repeat(RANDOM_CHARS);
}

function encodeTime(ms: number): string {
  let out = '';
  let rest = ms;
  for (let i = 0; i < TIME_CHARS; i++) {
    out = ALPHABET[rest % 32] + out;
    rest = Math.floor(rest / 32);
  }
  return out;
}

function encodeRandom(value: bigint): string {
  let out = '';
  let rest = value;
  for (let i = 0; i < RANDOM_CHARS; i++) {
    out = ALPHABET[Number(rest & 31n)] + out;
    rest >>= 5n;
  }
  return out;
}

/**
 * Makes ids that strictly increase within this generator: a second id in the same millisecond (or
 * after the clock stepped back) keeps the last time and adds one to the last random part, so
 * events recorded one after another by an instance never sort out of order.
 */
export class EventIdGenerator {
  readonly #clock: Clock;
  readonly #random: (bytes: number) => Uint8Array;
  #lastTime = -1;
  #lastRandom = 0n;

  constructor(clock: Clock, random: (bytes: number) => Uint8Array = randomBytes) {
    this.#clock = clock;
    this.#random = random;
  }

  next(): string {
    const now = Math.min(MAX_TIME, Math.max(0, this.#clock.now().getTime()));
    if (now > this.#lastTime) {
      this.#lastTime = now;
      this.#lastRandom = this.#fresh();
    } else if (this.#lastRandom < RANDOM_MAX) {
      this.#lastRandom += 1n;
    } else {
      // 2^80 ids in one millisecond cannot happen by chance; move on to the next millisecond.
      this.#lastTime = Math.min(MAX_TIME, this.#lastTime + 1);
      this.#lastRandom = this.#fresh();
    }
    return encodeTime(this.#lastTime) + encodeRandom(this.#lastRandom);
  }

  #fresh(): bigint {
    let value = 0n;
    for (const byte of this.#random(10)) value = (value << 8n) | BigInt(byte);
    // Leaves room to count up within the millisecond.
    return value >> 1n;
  }
}
