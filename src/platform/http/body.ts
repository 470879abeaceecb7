/** Default bound of a JSON request body; tool arguments are a few hundred bytes. */
export const DEFAULT_BODY_LIMIT_BYTES = 64 * 1024;

/**
 * Why a body was refused, as an error-table code (400, 413, 415); each surface writes it its own
 * way (a REST error body, a JSON-RPC error).
 */
export interface BodyFailure {
  readonly code: 'BAD_USER_INPUT' | 'PAYLOAD_TOO_LARGE' | 'UNSUPPORTED_MEDIA_TYPE';
  readonly message: string;
  readonly details?: Readonly<Record<string, unknown>>;
}

export type BodyOutcome<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly failure: BodyFailure };

export interface ReadJsonOptions {
  readonly limitBytes: number;
  /** What an empty body (no bytes at all) reads as; without it, an empty body is refused. */
  readonly empty?: unknown;
}

/**
 * The whole body, or undefined when it is over the limit: a declared Content-Length over it is
 * refused before reading, and the body is read as a stream and abandoned at the limit (a missing
 * or false Content-Length does not help a client past it).
 */
export async function readBoundedBody(request: Request, limitBytes: number): Promise<Uint8Array | undefined> {
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(declared) && declared > limitBytes) return undefined;
  if (!request.body) return new Uint8Array(0);
  // A declared length within the limit bounds the body by itself (the HTTP parser delivers no byte
  // past it), so the body is taken whole: the server's request collects its chunks from the socket
  // directly, without a stream reader's promise per chunk.
  if (Number.isFinite(declared)) {
    const whole = (await request.arrayBuffer()) as ArrayBuffer | Uint8Array;
    return whole instanceof Uint8Array ? whole : new Uint8Array(whole);
  }
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limitBytes) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  const body = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}

/**
 * Reads a JSON request body (any JSON value), bounded. A body needs a JSON content type (415
 * otherwise; an empty body may have none), must be UTF-8 and parse (400). The parse error is not
 * returned, because engines quote the offending input in it.
 */
export async function readJsonBody(
  request: Request,
  options: ReadJsonOptions,
): Promise<BodyOutcome<unknown>> {
  const { limitBytes } = options;
  const contentType = request.headers.get('content-type');
  if (contentType !== null && !isJsonContentType(contentType)) return unsupported();

  const bytes = await readBoundedBody(request, limitBytes);
  if (bytes === undefined) return tooLarge(limitBytes);

  if (bytes.byteLength === 0) {
    if (options.empty !== undefined) return { ok: true, value: options.empty };
    return bad('the request body is empty: send a JSON value');
  }
  if (contentType === null) return unsupported();

  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    return bad('the request body is not valid UTF-8');
  }
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return bad('the request body is not valid JSON');
  }
}

const EMPTY = Symbol('empty body');
/** Stateless between calls (no `stream` option), so one decoder serves every request. */
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** A JSON body that must be an object; with `emptyAsObject`, an empty body reads as `{}`. */
export async function readJsonObject(
  request: Request,
  options: { readonly limitBytes: number; readonly emptyAsObject: boolean },
): Promise<BodyOutcome<Record<string, unknown>>> {
  const body = await readJsonBody(request, { limitBytes: options.limitBytes, empty: EMPTY });
  if (!body.ok) return body;
  const { value } = body;
  if (value === EMPTY) {
    return options.emptyAsObject
      ? { ok: true, value: {} }
      : bad('the request body is empty: send a JSON object');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    const kind = value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
    return bad(`the request body must be a JSON object, not ${kind}`);
  }
  return { ok: true, value: value as Record<string, unknown> };
}

/** `application/json` or any `application/*+json`, in UTF-8 (the only encoding JSON may use). */
export function isJsonContentType(contentType: string): boolean {
  const [essence = '', ...parameters] = contentType.split(';').map((p) => p.trim().toLowerCase());
  const json = essence === 'application/json' || /^application\/[a-z0-9.!#$&^_-]+\+json$/.test(essence);
  const charset = parameters
    .find((p) => p.startsWith('charset='))
    ?.slice('charset='.length)
    .replace(/"/g, '');
  return json && (charset === undefined || charset === 'utf-8' || charset === 'utf8');
}

const bad = (message: string): { ok: false; failure: BodyFailure } => ({
  ok: false,
  failure: { code: 'BAD_USER_INPUT', message, details: { field: '(body)' } },
});

const unsupported = (): { ok: false; failure: BodyFailure } => ({
  ok: false,
  failure: {
    code: 'UNSUPPORTED_MEDIA_TYPE',
    message: 'the request body must be JSON: send Content-Type: application/json',
  },
});

const tooLarge = (limitBytes: number): { ok: false; failure: BodyFailure } => ({
  ok: false,
  failure: {
    code: 'PAYLOAD_TOO_LARGE',
    message: `the request body is over the limit of ${limitBytes} bytes`,
    details: { limitBytes },
  },
});
