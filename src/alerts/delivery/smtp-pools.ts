/**
 * SMTP connections kept between email deliveries. An email delivery is one recipient, and its
 * message is one SMTP transaction (MAIL FROM, one RCPT TO, DATA) on a connection kept open for the
 * next ones: one nodemailer pool per server and login (the checked address, port, TLS mode, server
 * name, user and password), of `connectionsPerServer` connections.
 *
 * Why one recipient per transaction rather than several: a recipient the server refuses for now
 * (450, greylisting) or never reaches (the connection dropped) is then retried alone, and a
 * transaction's deadline covers one RCPT whatever the size of the list, so a slow server cannot
 * make a long list miss its deadline on every attempt. The cost, a DATA per recipient, is small
 * over a kept connection and bounded (at most 50 recipients per alert).
 *
 * A gate in front of each pool lets no more messages in than it has connections: a message starts
 * its transaction at once, and its deadline (ALERT_DELIVERY_TIMEOUT_MS) is its own transaction's,
 * not the wait for the messages before it. A message that waits longer than that for a connection
 * is not sent (its attempt is retried). A pool is closed once no message has used it for
 * POOL_IDLE_MS (connections serve the bursts of a firing's recipients, not the quiet between
 * events, when a server would drop them anyway), and all of them at shutdown.
 */
import { createHash } from 'node:crypto';
import type { Transporter } from 'nodemailer';

/** Connections kept per SMTP server and login. */
export const SMTP_CONNECTIONS_PER_SERVER = 4;
/** Messages one connection carries before it is renewed. */
export const SMTP_MESSAGES_PER_CONNECTION = 100;
const POOL_IDLE_MS = 2_000;

/** What identifies a pool: where it connects and as whom. */
export interface SmtpPoolKey {
  readonly address: string;
  readonly port: number;
  readonly tls: string;
  readonly servername: string;
  readonly user: string | undefined;
  readonly password: string | undefined;
}

interface Pool {
  readonly transport: Transporter;
  readonly gate: Gate;
  idle: ReturnType<typeof setTimeout> | undefined;
}

/** The pools of one deliverer. */
export class SmtpPools {
  readonly #pools = new Map<string, Pool>();
  readonly #connections: number;
  readonly #maxPools: number;
  #closed = false;

  constructor(connectionsPerServer = SMTP_CONNECTIONS_PER_SERVER, maxPools = 64) {
    this.#connections = connectionsPerServer;
    this.#maxPools = maxPools;
  }

  get connectionsPerServer(): number {
    return this.#connections;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Runs `send` on the pool for `key` (made with `create` on first use) once one of its connections
   * is free; `busy` when none was free within `waitMs` or `signal` aborted first (nothing was sent).
   */
  async use<T>(
    key: SmtpPoolKey,
    create: () => Transporter,
    o: { readonly signal: AbortSignal; readonly waitMs: number },
    send: (transport: Transporter) => Promise<T>,
  ): Promise<T | 'busy'> {
    const id = poolId(key);
    const pool = this.#pool(id, create);
    clearTimeout(pool.idle);
    pool.idle = undefined;
    if (!(await pool.gate.acquire(o.signal, o.waitMs))) {
      this.#closeWhenIdle(id, pool);
      return 'busy';
    }
    try {
      return await send(pool.transport);
    } finally {
      pool.gate.release();
      this.#closeWhenIdle(id, pool);
    }
  }

  /** Closes every pool (a message under way ends first); later sends connect without one. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const pool of this.#pools.values()) {
      clearTimeout(pool.idle);
      pool.transport.close();
    }
    this.#pools.clear();
  }

  #pool(id: string, create: () => Transporter): Pool {
    const found = this.#pools.get(id);
    // Re-inserted on every use: the map's order is least recently used first.
    if (found) this.#pools.delete(id);
    const pool = found ?? { transport: create(), gate: new Gate(this.#connections), idle: undefined };
    this.#pools.set(id, pool);
    for (const [k, p] of this.#pools) {
      if (this.#pools.size <= this.#maxPools) break;
      if (p.gate.busy) continue;
      this.#drop(k, p);
    }
    return pool;
  }

  #closeWhenIdle(id: string, pool: Pool): void {
    if (pool.gate.busy || this.#pools.get(id) !== pool) return;
    clearTimeout(pool.idle);
    pool.idle = setTimeout(() => {
      if (!pool.gate.busy && this.#pools.get(id) === pool) this.#drop(id, pool);
    }, POOL_IDLE_MS);
    pool.idle.unref?.();
  }

  #drop(id: string, pool: Pool): void {
    clearTimeout(pool.idle);
    this.#pools.delete(id);
    pool.transport.close();
  }
}

/** The key's identity; the password only as a digest. */
function poolId(key: SmtpPoolKey): string {
  const password = key.password === undefined ? '' : createHash('sha256').update(key.password).digest('hex');
  return JSON.stringify([key.address, key.port, key.tls, key.servername, key.user ?? '', password]);
}

/** At most `size` holders at once; the others wait in order, each for a bounded time. */
class Gate {
  readonly #size: number;
  #held = 0;
  readonly #waiting: Array<() => void> = [];

  constructor(size: number) {
    this.#size = Math.max(1, size);
  }

  get busy(): boolean {
    return this.#held > 0;
  }

  acquire(signal: AbortSignal, waitMs: number): Promise<boolean> {
    if (signal.aborted) return Promise.resolve(false);
    if (this.#held < this.#size) {
      this.#held++;
      return Promise.resolve(true);
    }
    return new Promise<boolean>((resolve) => {
      const done = (taken: boolean) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', give);
        const at = this.#waiting.indexOf(take);
        if (at >= 0) this.#waiting.splice(at, 1);
        resolve(taken);
      };
      // Called by release with the slot handed over (the count stays).
      const take = () => done(true);
      const give = () => done(false);
      const timer = setTimeout(give, waitMs);
      signal.addEventListener('abort', give, { once: true });
      this.#waiting.push(take);
    });
  }

  release(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#held--;
  }
}
