import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** Who is calling, as far as rate limits and (later) authorization are concerned. */
export interface Viewer {
  /** Stable key for per-client limits: `key:<sha256 prefix>` or `ip:<address>`. */
  readonly clientId: string;
  readonly remoteAddress: string | undefined;
  readonly hasApiKey: boolean;
}

export const API_KEY_HEADER = 'x-api-key';

/**
 * An API key (hashed: the key itself never reaches logs or stores) identifies the client when
 * present, else the remote address. Behind a proxy (`TRUST_PROXY=true`) the first
 * X-Forwarded-For address is the client.
 */
export function identifyClient(
  headers: { get(name: string): string | null | undefined },
  req: IncomingMessage | undefined,
  trustProxy: boolean,
): Viewer {
  const forwarded = trustProxy ? headers.get('x-forwarded-for')?.split(',')[0]?.trim() : undefined;
  const remoteAddress = forwarded || req?.socket.remoteAddress || undefined;
  const apiKey = headers.get(API_KEY_HEADER)?.trim();
  if (apiKey) {
    const digest = createHash('sha256').update(apiKey).digest('hex').slice(0, 24);
    return { clientId: `key:${digest}`, remoteAddress, hasApiKey: true };
  }
  return { clientId: remoteAddress ? `ip:${remoteAddress}` : 'ip:unknown', remoteAddress, hasApiKey: false };
}

/** Headers of a Node request, read through the same `get` interface as fetch Headers. */
export function nodeHeaders(req: IncomingMessage) {
  return {
    get(name: string): string | undefined {
      const value = req.headers[name.toLowerCase()];
      return Array.isArray(value) ? value.join(', ') : value;
    },
  };
}
