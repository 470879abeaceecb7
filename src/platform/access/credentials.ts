/**
 * Where a caller may present an API key, in one place for every surface:
 * - HTTP: `Authorization: Bearer <key>` or `X-API-Key: <key>`;
 * - graphql-ws: `connectionParams.apiKey` or `connectionParams.authorization` (`Bearer <key>`);
 * - plain WebSocket routes also `?key=<key>` (browsers cannot set headers on a WebSocket).
 *
 * The answer is the presented secret, none, or a malformed presentation (two different keys, a
 * Bearer credential that is not a key): that is refused, never read as "no key". An Authorization
 * header of another scheme (a proxy's Basic login) is not a key at all.
 */
export type Presented =
  | { readonly kind: 'none' }
  | { readonly kind: 'key'; readonly secret: string }
  | { readonly kind: 'malformed'; readonly problem: string };

export const API_KEY_HEADER = 'x-api-key';
export const KEY_QUERY_PARAMETER = 'key';
/** Longest key we read; anything longer is not one of ours and is not hashed. */
const MAX_KEY_LENGTH = 512;

const NONE: Presented = { kind: 'none' };

interface HeaderReader {
  get(name: string): string | null | undefined;
}

export function presentedInHeaders(headers: HeaderReader): Presented {
  const authorization = headers.get('authorization')?.trim();
  const header = headers.get(API_KEY_HEADER)?.trim();
  // Another scheme (Basic from a proxy's own login, say) is not ours: no key, not a bad one.
  const fromAuthorization =
    authorization && /^bearer(\s|$)/i.test(authorization) ? bearer(authorization, 'Authorization') : NONE;
  const fromHeader: Presented = header ? asKey(header, 'X-API-Key') : NONE;
  return combine(fromAuthorization, fromHeader);
}

/** The `key` query parameter of a WebSocket URL, combined with the headers of its upgrade. */
export function presentedInUpgrade(headers: HeaderReader, url: string | undefined): Presented {
  const values = new URL(url ?? '/', 'http://localhost').searchParams.getAll(KEY_QUERY_PARAMETER);
  if (new Set(values).size > 1)
    return { kind: 'malformed', problem: 'two different API keys were presented' };
  const query = values[0];
  const fromQuery: Presented = query ? asKey(query, 'the key parameter') : NONE;
  return combine(presentedInHeaders(headers), fromQuery);
}

/** graphql-ws `connectionParams`: `apiKey`, or `authorization` as an HTTP header would have it. */
export function presentedInConnectionParams(params: unknown): Presented {
  if (params === null || typeof params !== 'object') return NONE;
  const { apiKey, authorization } = params as Record<string, unknown>;
  const fromApiKey: Presented =
    apiKey === undefined || apiKey === null
      ? NONE
      : typeof apiKey === 'string'
        ? asKey(apiKey.trim(), 'connectionParams.apiKey')
        : { kind: 'malformed', problem: 'connectionParams.apiKey must be a string' };
  const fromAuthorization: Presented =
    authorization === undefined || authorization === null
      ? NONE
      : typeof authorization === 'string'
        ? bearer(authorization.trim(), 'connectionParams.authorization')
        : { kind: 'malformed', problem: 'connectionParams.authorization must be a string' };
  return combine(fromApiKey, fromAuthorization);
}

function bearer(value: string, where: string): Presented {
  const match = /^bearer\s+(\S+)$/i.exec(value);
  if (!match) {
    return { kind: 'malformed', problem: `${where} must be "Bearer <API key>"` };
  }
  return asKey(match[1]!, where);
}

function asKey(value: string, where: string): Presented {
  if (value.length === 0) return NONE;
  if (value.length > MAX_KEY_LENGTH || /[\s\p{Cc}]/u.test(value)) {
    return { kind: 'malformed', problem: `${where} does not hold an API key` };
  }
  return { kind: 'key', secret: value };
}

/** Two places may carry the same key; two different keys are a mistake we do not guess through. */
function combine(a: Presented, b: Presented): Presented {
  if (a.kind === 'malformed') return a;
  if (b.kind === 'malformed') return b;
  if (a.kind === 'none') return b;
  if (b.kind === 'none') return a;
  if (a.secret !== b.secret) return { kind: 'malformed', problem: 'two different API keys were presented' };
  return a;
}
