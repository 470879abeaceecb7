/**
 * One HTTP request to a host the SSRF guard checked, connected to exactly the addresses it checked:
 * the URL keeps the host name (Host header, TLS server name and certificate check stay right), and
 * the socket's DNS lookup answers with the pinned addresses instead of asking DNS again.
 *
 * Connections are kept between deliveries by `PinnedConnections`, one connection pool per origin
 * AND set of checked addresses: a request reuses a socket only when this attempt's own check gave
 * exactly the addresses that socket was opened to, so every request still goes where its check
 * allowed. A new answer from DNS is another pool; pools idle for a while are closed.
 */
import type { LookupFunction } from 'node:net';
import type { Agent } from 'undici';
import { loadUndici, type Undici } from '../../platform/http/undici.ts';
import type { PinnedHost } from './ssrf.ts';

export interface PinnedRequest {
  readonly method: 'GET' | 'POST' | 'PUT';
  readonly headers: Record<string, string>;
  readonly body?: string;
  readonly timeoutMs: number;
  readonly signal: AbortSignal;
  /** Bytes of the answer kept (the rest is discarded): receivers' bodies are only for error texts. */
  readonly maxBodyBytes: number;
}

export interface PinnedResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: string;
}

export function pinnedLookup(pinned: PinnedHost): LookupFunction {
  const [first] = pinned.addresses;
  return (_hostname, options, callback) => {
    if (!first) {
      callback(
        Object.assign(new Error(`no checked address for ${pinned.host}`), { code: 'ENOTFOUND' }),
        '',
        4,
      );
      return;
    }
    const cb = callback as (...args: unknown[]) => void;
    if (options?.all)
      cb(
        null,
        pinned.addresses.map((a) => ({ address: a.address, family: a.family })),
      );
    else cb(null, first.address, first.family);
  };
}

function pinnedAgent({ Agent }: Undici, pinned: PinnedHost, timeoutMs: number, reuse: boolean): Agent {
  return new Agent({
    connect: { lookup: pinnedLookup(pinned), timeout: timeoutMs },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    // Without a pool, one request per agent: its socket is closed after it.
    ...(reuse ? { keepAliveTimeout: KEEP_ALIVE_MS } : { pipelining: 0 }),
  });
}

/** How long an idle socket stays open (a receiver that says less is believed). */
const KEEP_ALIVE_MS = 4_000;
/** A pool unused this long is closed. */
const POOL_IDLE_MS = 30_000;

/**
 * The connection pools of one deliverer (see the file comment). Bounded: past `maxPools`, the pool
 * used least recently is closed (gracefully: its requests under way finish).
 */
export class PinnedConnections {
  readonly #pools = new Map<string, { agent: Agent; usedAt: number }>();
  readonly #maxPools: number;
  #closed = false;

  constructor(maxPools = 256) {
    this.#maxPools = maxPools;
  }

  /** The pool for `url`'s origin and these checked addresses; undefined once closed. */
  agentFor(undici: Undici, pinned: PinnedHost, url: URL, timeoutMs: number): Agent | undefined {
    if (this.#closed) return undefined;
    const addresses = pinned.addresses.map((a) => a.address).sort();
    const key = `${url.origin}|${addresses.join(',')}|${timeoutMs}`;
    const now = performance.now();
    const found = this.#pools.get(key);
    // Re-inserted on every use: the map's order is least recently used first.
    if (found) this.#pools.delete(key);
    const pool = found ?? { agent: pinnedAgent(undici, pinned, timeoutMs, true), usedAt: now };
    pool.usedAt = now;
    this.#pools.set(key, pool);
    for (const [k, p] of this.#pools) {
      if (this.#pools.size <= this.#maxPools && now - p.usedAt < POOL_IDLE_MS) break;
      this.#pools.delete(k);
      void p.agent.close().catch(() => {});
    }
    return pool.agent;
  }

  /** Closes every pool once its requests under way have finished; later requests use no pool. */
  async close(): Promise<void> {
    this.#closed = true;
    const agents = [...this.#pools.values()].map((p) => p.agent);
    this.#pools.clear();
    await Promise.all(agents.map((a) => a.close().catch(() => {})));
  }
}

export async function pinnedRequest(
  pinned: PinnedHost,
  url: URL,
  init: PinnedRequest,
  connections?: PinnedConnections,
): Promise<PinnedResponse> {
  const undici = await loadUndici();
  const pooled = connections?.agentFor(undici, pinned, url, init.timeoutMs);
  const agent = pooled ?? pinnedAgent(undici, pinned, init.timeoutMs, false);
  try {
    const response = await undici.request(url, {
      dispatcher: agent,
      method: init.method,
      headers: init.headers,
      ...(init.body !== undefined ? { body: init.body } : {}),
      signal: AbortSignal.any([init.signal, AbortSignal.timeout(init.timeoutMs)]),
    });
    // The status is the receiver's answer: a body cut short after it (a stall, a reset) leaves the
    // answer as it was, so an accepted message is not taken for a failure and sent again.
    const body = await readLimited(response.body, init.maxBodyBytes).catch(() => '');
    return { status: response.statusCode, headers: response.headers, body };
  } finally {
    if (!pooled) await agent.destroy().catch(() => {});
  }
}

async function readLimited(
  body: AsyncIterable<Uint8Array> & { destroy(): unknown },
  max: number,
): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buffer = Buffer.from(chunk);
    chunks.push(buffer.subarray(0, Math.max(0, max - size)));
    size += buffer.length;
    if (size >= max) {
      body.destroy();
      break;
    }
  }
  return Buffer.concat(chunks).toString('utf8');
}
