/**
 * Which custom webhook headers can be sent as written. An HTTP client manages some headers itself
 * (the connection's own: hop-by-hop and framing), refuses values it cannot put on the wire, and
 * Vigil sets a few of its own; a custom header of any of these kinds would either be dropped or
 * make every attempt fail, so the alert schema refuses it when it is written (naming the header)
 * and the webhook sender skips it for rows stored before that rule.
 */

/** RFC 9110 token characters (a field name). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$/;
/** Visible ASCII, space and tab: what every client sends as is (no obs-text, no control characters). */
const HEADER_VALUE = /^[\t\x20-\x7e]*$/;

/** Headers of the connection, not of the message (RFC 9110 7.6.1, 9112) and the framing the client computes. */
const CONNECTION_HEADERS = new Set([
  'connection',
  'keep-alive',
  'upgrade',
  'expect',
  'transfer-encoding',
  'te',
  'trailer',
  'host',
  'content-length',
]);

/** Headers Vigil writes on every webhook request. */
const VIGIL_HEADERS = new Set(['content-type']);

/**
 * Why the header `name: value` cannot be sent as written, or null when it can. Authorization is not
 * judged here: it is the auth token's header (see `headerProblem`).
 */
export function unsendableHeader(name: string, value: string): string | null {
  if (!HEADER_NAME.test(name)) return "is not a header name (letters, digits and !#$%&'*+.^_`|~-)";
  const lower = name.toLowerCase();
  if (CONNECTION_HEADERS.has(lower) || lower.startsWith('proxy-'))
    return 'is managed by the HTTP connection (hop-by-hop or framing) and cannot be set';
  if (VIGIL_HEADERS.has(lower) || lower.startsWith('x-vigil-')) return 'is set by Vigil';
  if (!HEADER_VALUE.test(value))
    return 'value must be printable ASCII (no control characters, line breaks or non-ASCII characters)';
  return null;
}

/** Why a client may not write the custom header `name: value`, or null when it may. */
export function headerProblem(name: string, value: string): string | null {
  if (name.toLowerCase() === 'authorization') return 'is set by Vigil: use auth_token';
  return unsendableHeader(name, value);
}
