import { type Identity, Store } from '@envelop/rate-limiter';

/**
 * One (client, field)'s calls, oldest first, in a ring buffer that doubles when full: counting a
 * call, expiring old ones and taking back the newest copy nothing. Timestamps come from one clock in
 * order, so the calls that left the window are at the head (should the clock step back, a call
 * behind a newer one leaves with it: late, never early).
 */
class CallLog {
  #at: Float64Array;
  #head = 0;
  size = 0;

  constructor(capacity = 4) {
    this.#at = new Float64Array(capacity);
  }

  /** The i-th call still held, oldest first. */
  at(i: number): number {
    return this.#at[(this.#head + i) & (this.#at.length - 1)]!;
  }

  /** Drops the calls that have left a window of `windowMs` at `now`. */
  expire(now: number, windowMs: number): void {
    const mask = this.#at.length - 1;
    while (this.size > 0 && this.#at[this.#head]! + windowMs <= now) {
      this.#head = (this.#head + 1) & mask;
      this.size--;
    }
  }

  push(t: number): void {
    if (this.size === this.#at.length) this.#grow();
    this.#at[(this.#head + this.size) & (this.#at.length - 1)] = t;
    this.size++;
  }

  /** Takes back the newest call. */
  pop(): void {
    if (this.size > 0) this.size--;
  }

  /** Takes back one call made at `t` (the newest such); the calls after it move up one. */
  remove(t: number): void {
    const mask = this.#at.length - 1;
    for (let i = this.size - 1; i >= 0; i--) {
      if (this.at(i) !== t) continue;
      for (let j = i; j < this.size - 1; j++) this.#at[(this.#head + j) & mask] = this.at(j + 1);
      this.size--;
      return;
    }
  }

  toArray(): number[] {
    return Array.from({ length: this.size }, (_, i) => this.at(i));
  }

  #grow(): void {
    const grown = new Float64Array(this.#at.length * 2);
    for (let i = 0; i < this.size; i++) grown[i] = this.at(i);
    this.#at = grown;
    this.#head = 0;
  }
}

/**
 * Sliding-window call log per (client, field). Unlike the rate limiter's default store it forgets
 * idle clients (memory stays bounded by active clients), can say when the next call is allowed, and
 * counts or gives back a call without copying the client's log (see `charge`). It keeps the
 * `Store` contract of @envelop/rate-limiter, so the package's own limiter can count into it too.
 */
export class SlidingWindowStore extends Store {
  /** Logs by client (`contextIdentity`), then by field (`fieldIdentity`). */
  readonly #clients = new Map<string, Map<string, CallLog>>();
  #sweepAt = 0;

  override getForIdentity(identity: Identity): readonly number[] {
    return this.#log(identity)?.toArray() ?? [];
  }

  override setForIdentity(identity: Identity, timestamps: readonly number[], windowMs?: number): void {
    const log = new CallLog(capacityFor(timestamps.length));
    for (const t of [...timestamps].sort((a, b) => a - b)) log.push(t);
    let logs = this.#clients.get(identity.contextIdentity);
    if (!logs) {
      logs = new Map();
      this.#clients.set(identity.contextIdentity, logs);
    }
    if (log.size === 0) logs.delete(identity.fieldIdentity);
    else logs.set(identity.fieldIdentity, log);
    if (logs.size === 0) this.#clients.delete(identity.contextIdentity);
    if (windowMs) this.#sweep(Date.now(), windowMs);
  }

  /**
   * Counts one call at `now` for each entry of `fields` (a field named twice counts twice), unless
   * one would go over `max` calls in the window: then none is counted and its index is returned
   * (-1 when all were counted). Allocates nothing once the client's logs exist.
   */
  charge(client: string, fields: readonly string[], max: number, windowMs: number, now: number): number {
    this.#sweep(now, windowMs);
    let logs = this.#clients.get(client);
    if (!logs) {
      logs = new Map();
      this.#clients.set(client, logs);
    }
    for (let i = 0; i < fields.length; i++) {
      let log = logs.get(fields[i]!);
      if (!log) {
        log = new CallLog();
        logs.set(fields[i]!, log);
      }
      log.expire(now, windowMs);
      if (log.size >= max) {
        // Nothing ran in between: the calls this operation just counted are the newest.
        for (let j = 0; j < i; j++) logs.get(fields[j]!)?.pop();
        return i;
      }
      log.push(now);
    }
    return -1;
  }

  /**
   * Gives back the calls a `charge` at `at` counted (those still in the window), also after other
   * operations of the same client were counted.
   */
  refund(client: string, fields: readonly string[], at: number): void {
    const logs = this.#clients.get(client);
    if (!logs) return;
    for (const field of fields) logs.get(field)?.remove(at);
  }

  /** Whole seconds until one more call fits under `max` in the window (at least 1). */
  retryAfterSeconds(identity: Identity, max: number, windowMs: number): number {
    const now = Date.now();
    const log = this.#log(identity);
    log?.expire(now, windowMs);
    const freeing = log && log.size > 0 ? log.at(Math.max(0, log.size - max)) : now;
    return Math.max(1, Math.ceil((freeing + windowMs - now) / 1000));
  }

  #log(identity: Identity): CallLog | undefined {
    return this.#clients.get(identity.contextIdentity)?.get(identity.fieldIdentity);
  }

  /** Once per window: drops the calls that left it, then the logs and clients left empty. */
  #sweep(now: number, windowMs: number): void {
    if (now < this.#sweepAt) return;
    this.#sweepAt = now + windowMs;
    for (const [client, logs] of this.#clients) {
      for (const [field, log] of logs) {
        log.expire(now, windowMs);
        if (log.size === 0) logs.delete(field);
      }
      if (logs.size === 0) this.#clients.delete(client);
    }
  }
}

/** The smallest power of two (at least 4) that holds `n` calls: the ring buffer's index mask needs one. */
function capacityFor(n: number): number {
  let capacity = 4;
  while (capacity < n) capacity *= 2;
  return capacity;
}
