import { GraphQLError } from 'graphql';

/**
 * Longest error message any surface returns. Engines quote the offending input in their messages
 * (a token, a value, a name); a client must never get its input back in full.
 */
export const MAX_ERROR_MESSAGE_CHARS = 500;

export function boundMessage(message: string, max = MAX_ERROR_MESSAGE_CHARS): string {
  return message.length <= max ? message : `${message.slice(0, max - 1)}…`;
}

/** A copy of `error` with another message, keeping its locations, path and extensions. */
export function withMessage(error: GraphQLError, message: string): GraphQLError {
  if (message === error.message) return error;
  return new GraphQLError(message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    originalError: error.originalError,
    extensions: error.extensions,
  });
}

/**
 * A client's mistake in the request itself (nothing ran): HTTP 400 (or `status`) with a code from
 * the error table, and details beside the code as every surface expects them.
 */
export function requestError(
  code: string,
  message: string,
  details: Readonly<Record<string, unknown>> = {},
  status = 400,
): GraphQLError {
  // `spec: false`: Yoga would otherwise answer 200 to clients that accept plain application/json.
  return new GraphQLError(boundMessage(message), {
    extensions: { code, ...details, http: { status, spec: false } },
  });
}

/** Limits every document is held to, on every surface (HTTP, graphql-ws, the operation runner). */
export type DocumentLimit = 'tokens' | 'aliases' | 'depth' | 'cost';

export function limitError(limit: DocumentLimit, max: number, found?: number): GraphQLError {
  const what = {
    tokens: 'tokens',
    aliases: 'aliased fields',
    depth: 'levels of nesting',
    cost: 'fields (counting each fragment where it is used)',
  }[limit];
  const known = found !== undefined && Number.isSafeInteger(found);
  return requestError(
    'GRAPHQL_LIMIT_EXCEEDED',
    known
      ? `The document has ${found} ${what}; the limit is ${max} (${limit}).`
      : `The document has more than ${max} ${what}; the limit is ${max} (${limit}).`,
    { limit, max, ...(known ? { found } : {}) },
  );
}

/**
 * Errors carry Yoga's HTTP status marker (`extensions.http`); a message on a socket or an event in
 * a stream has no status of its own, so the marker is dropped there.
 */
export function withoutHttp(error: GraphQLError): GraphQLError {
  if (!error.extensions || !('http' in error.extensions)) return error;
  const { http: _http, ...extensions } = error.extensions;
  return new GraphQLError(error.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    originalError: error.originalError,
    extensions,
  });
}
