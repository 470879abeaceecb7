/**
 * One HTTP request to a host the SSRF guard checked, connected to exactly the addresses it checked:
 * the URL keeps the host name (Host header, TLS server name and certificate check stay right), and
 * the socket's DNS lookup answers with the pinned addresses instead of asking DNS again.
 */
import type { LookupFunction } from 'node:net';
import { Agent, request } from 'undici';
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

export async function pinnedRequest(
  pinned: PinnedHost,
  url: URL,
  init: PinnedRequest,
): Promise<PinnedResponse> {
  const agent = new Agent({
    connect: { lookup: pinnedLookup(pinned), timeout: init.timeoutMs },
    headersTimeout: init.timeoutMs,
    bodyTimeout: init.timeoutMs,
    // One request per agent: nothing is reused across deliveries, so nothing outlives its check.
    pipelining: 0,
  });
  try {
    const response = await request(url, {
      dispatcher: agent,
      method: init.method,
      headers: init.headers,
      ...(init.body !== undefined ? { body: init.body } : {}),
      signal: AbortSignal.any([init.signal, AbortSignal.timeout(init.timeoutMs)]),
    });
    const body = await readLimited(response.body, init.maxBodyBytes);
    return { status: response.statusCode, headers: response.headers, body };
  } finally {
    await agent.destroy().catch(() => {});
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
