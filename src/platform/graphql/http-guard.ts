import type { ExecutionResult } from 'graphql';
import type { GraphQLParams, Plugin } from 'graphql-yoga';
import { isJsonContentType, readBoundedBody, readJsonObject } from '../http/body.ts';
import { requestError } from './graphql-errors.ts';

/**
 * Headers that show a GET operation was sent by code that could set headers, so a browser would
 * have preflighted it (the names GraphQL clients already send: ours, Yoga's and Apollo's).
 */
export const CSRF_HEADERS = [
  'x-graphql-csrf',
  'x-graphql-yoga-csrf',
  'apollo-require-preflight',
  'x-apollo-operation-name',
] as const;

/** Content types a browser form or a no-CORS fetch can send without a preflight. */
const SIMPLE_CONTENT_TYPES = new Set([
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'text/plain',
]);

export interface HttpGuardOptions {
  /** Largest request body `/graphql` reads; larger ones are refused before or while reading. */
  readonly maxBodyBytes: number;
}

/**
 * How `/graphql` reads HTTP requests, before any operation runs:
 * - CSRF: a GET operation needs one of CSRF_HEADERS or a non-simple Content-Type, and a POST must be
 *   JSON (or `application/graphql`), so a page elsewhere cannot make a browser run an operation
 *   without a preflight that CORS refuses. Forms and multipart bodies never reach the executor.
 * - The body is read bounded (Content-Length, then the stream) and a JSON error never quotes it.
 */
export function httpGuardPlugin(options: HttpGuardOptions): Plugin {
  const { maxBodyBytes } = options;
  return {
    onRequestParse({ request, setRequestParser }) {
      const method = request.method.toUpperCase();
      const type = essence(request.headers.get('content-type'));
      if (method === 'GET' || method === 'HEAD') {
        const preflighted =
          (type !== undefined && !SIMPLE_CONTENT_TYPES.has(type)) ||
          CSRF_HEADERS.some((name) => (request.headers.get(name) ?? '') !== '');
        if (!preflighted) throw csrfRefused();
        return;
      }
      if (method !== 'POST') return; // Yoga answers 405
      const declared = Number(request.headers.get('content-length') ?? Number.NaN);
      if (Number.isFinite(declared) && declared > maxBodyBytes) throw tooLarge(maxBodyBytes);
      const contentType = request.headers.get('content-type');
      if (contentType !== null && isJsonContentType(contentType)) {
        setRequestParser((req) => readJsonParams(req, maxBodyBytes));
      } else if (type === 'application/graphql') {
        setRequestParser((req) => readGraphqlString(req, maxBodyBytes));
      } else {
        throw requestError(
          'UNSUPPORTED_MEDIA_TYPE',
          'send the operation as JSON: Content-Type: application/json',
          {},
          415,
        );
      }
    },
    onExecutionResult({ result }) {
      // Yoga answers a document that does not parse or validate with 200 to clients that accept
      // plain application/json (the older GraphQL-over-HTTP convention it marks `spec`). A refused
      // request is a 4xx whatever the client accepts, so no monitor or client mistakes it for a success.
      if (!result || Array.isArray(result) || Symbol.asyncIterator in result) return;
      for (const error of (result as ExecutionResult).errors ?? []) {
        const http = error.extensions?.http as { spec?: boolean } | undefined;
        if (http?.spec) http.spec = false;
      }
    },
  };
}

async function readJsonParams(request: Request, limitBytes: number): Promise<GraphQLParams> {
  const body = await readJsonObject(request, { limitBytes, emptyAsObject: false }).catch(clientGone);
  if (!body.ok) {
    const { code, message, details } = body.failure;
    throw requestError(code, message, details, STATUS[code]);
  }
  return body.value as GraphQLParams;
}

async function readGraphqlString(request: Request, limitBytes: number): Promise<GraphQLParams> {
  const bytes = await readBoundedBody(request, limitBytes).catch(clientGone);
  if (bytes === undefined) throw tooLarge(limitBytes);
  try {
    return { query: new TextDecoder('utf-8', { fatal: true }).decode(bytes) };
  } catch {
    throw requestError('BAD_USER_INPUT', 'the request body is not valid UTF-8', { field: '(body)' });
  }
}

/**
 * Reading the body failed: the connection broke under it. Yoga treats an AbortError as the client
 * going away (logged at debug, nothing answered) rather than as a failure of ours.
 */
function clientGone(): never {
  throw new DOMException('the client went away while sending the body', 'AbortError');
}

const STATUS = { BAD_USER_INPUT: 400, PAYLOAD_TOO_LARGE: 413, UNSUPPORTED_MEDIA_TYPE: 415 } as const;

const tooLarge = (limitBytes: number) =>
  requestError(
    'PAYLOAD_TOO_LARGE',
    `the request body is over the limit of ${limitBytes} bytes`,
    { limitBytes },
    413,
  );

const csrfRefused = () =>
  requestError(
    'CSRF_HEADER_REQUIRED',
    `a GET operation needs a header a browser would preflight: send ${CSRF_HEADERS[0]}: 1 (or use POST with application/json)`,
    { headers: [...CSRF_HEADERS] },
    403,
  );

function essence(contentType: string | null): string | undefined {
  const value = contentType?.split(';')[0]?.trim().toLowerCase();
  return value ? value : undefined;
}
