/** Default bound of a JSON request body; tool arguments are a few hundred bytes. */
export const DEFAULT_BODY_LIMIT_BYTES = 64 * 1024;

/** Why a body was refused; the code's status comes from the error table. */
export interface BodyFailure {
  readonly code: 'BAD_USER_INPUT' | 'PAYLOAD_TOO_LARGE' | 'UNSUPPORTED_MEDIA_TYPE';
  readonly message: string;
  readonly details?: Readonly<Record<string, unknown>>;
}

export type BodyOutcome =
  | { readonly ok: true; readonly value: Record<string, unknown> }
  | { readonly ok: false; readonly failure: BodyFailure };

export interface ReadJsonOptions {
  readonly limitBytes: number;
  /** An empty body (no bytes at all) reads as `{}` instead of being refused. */
  readonly emptyAsObject: boolean;
}

/**
 * Reads a request body that must be a JSON object. The body is read as a stream and abandoned at
 * the limit (a missing or false Content-Length does not help a client past it); the parse error
 * is not returned, because engines quote the offending input in it.
 */
export async function readJsonObject(request: Request, options: ReadJsonOptions): Promise<BodyOutcome> {
  const { limitBytes } = options;
  const contentType = request.headers.get('content-type');
  if (contentType !== null && !isJson(contentType)) return unsupported();

  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(declared) && declared > limitBytes) return tooLarge(limitBytes);
  const bytes = await readBounded(request, limitBytes);
  if (bytes === undefined) return tooLarge(limitBytes);

  if (bytes.byteLength === 0) {
    if (options.emptyAsObject) return { ok: true, value: {} };
    return bad('the request body is empty: send a JSON object');
  }
  if (contentType === null) return unsupported();

  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return bad('the request body is not valid UTF-8');
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return bad('the request body is not valid JSON');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return bad(
      `the request body must be a JSON object, not ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}`,
    );
  }
  return { ok: true, value: value as Record<string, unknown> };
}

/** `application/json` or any `application/*+json`, in UTF-8 (the only encoding JSON may use). */
function isJson(contentType: string): boolean {
  const [essence = '', ...parameters] = contentType.split(';').map((p) => p.trim().toLowerCase());
  const json = essence === 'application/json' || /^application\/[a-z0-9.!#$&^_-]+\+json$/.test(essence);
  const charset = parameters
    .find((p) => p.startsWith('charset='))
    ?.slice('charset='.length)
    .replace(/"/g, '');
  return json && (charset === undefined || charset === 'utf-8' || charset === 'utf8');
}

/** The whole body, or undefined as soon as it passes the limit (the rest is never read). */
async function readBounded(request: Request, limitBytes: number): Promise<Uint8Array | undefined> {
  if (!request.body) return new Uint8Array(0);
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

const bad = (message: string): BodyOutcome => ({
  ok: false,
  failure: { code: 'BAD_USER_INPUT', message, details: { field: '(body)' } },
});

const unsupported = (): BodyOutcome => ({
  ok: false,
  failure: {
    code: 'UNSUPPORTED_MEDIA_TYPE',
    message: 'the request body must be JSON: send Content-Type: application/json',
  },
});

const tooLarge = (limitBytes: number): BodyOutcome => ({
  ok: false,
  failure: {
    code: 'PAYLOAD_TOO_LARGE',
    message: `the request body is over the limit of ${limitBytes} bytes`,
    details: { limitBytes },
  },
});
