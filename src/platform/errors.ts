/**
 * Domain errors with stable codes. A code says what went wrong; what it means on each surface
 * (HTTP status, MCP result) is looked up in the error table (see `ErrorTable`), assembled once from
 * the platform's codes and every module's, so no error carries its own status.
 */
export class AppError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly details?: Readonly<Record<string, unknown>>,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** Input that names the offending field (`BAD_USER_INPUT`, with `details.field`). */
export class ValidationError extends AppError {
  constructor(
    readonly field: string,
    problem: string,
    details?: Record<string, unknown>,
  ) {
    super('BAD_USER_INPUT', `${field}: ${problem}`, { field, ...details });
  }
}

export class NotFoundError extends AppError {
  constructor(what: string, id: string) {
    super('NOT_FOUND', `${what} ${JSON.stringify(id)} was not found`, { [what]: id });
  }
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}

/**
 * What an error code means to clients. `status` is the HTTP status of REST routes and tool routes.
 * `mcp` says how an MCP tool call reports it: `tool_error` is a result with `isError: true` (the
 * caller, often a model, reads the message and can correct itself); `protocol_error` is a JSON-RPC
 * error (the call itself was malformed).
 */
export interface ErrorCodeSpec {
  readonly status: number;
  readonly description: string;
  readonly mcp?: 'tool_error' | 'protocol_error';
}

export type ErrorCodeTable = Readonly<Record<string, ErrorCodeSpec>>;

/** Codes the platform itself produces; modules add theirs (see ModuleDefinition.errors). */
export const PLATFORM_ERRORS = {
  BAD_USER_INPUT: { status: 400, description: 'An argument or field is invalid; `details.field` names it.' },
  INVALID_ARGUMENTS: {
    status: 422,
    description:
      'The request body or tool arguments do not match the schema; `details.issues` lists each problem.',
    mcp: 'protocol_error',
  },
  UNAUTHENTICATED: {
    status: 401,
    description:
      'No API key where one is required, or one that is not valid, revoked or expired (`details.reason`). HTTP answers carry `WWW-Authenticate: Bearer`; WebSockets close with 4401.',
  },
  FORBIDDEN: {
    status: 403,
    description:
      'The API key lacks the scope the operation needs; `details.scope` names it (`read`, `write` or `admin`). WebSockets close with 4403.',
  },
  NOT_FOUND: {
    status: 404,
    description:
      "The thing asked for does not exist (or belongs to another caller: other callers' ids are never confirmed).",
  },
  UNKNOWN_TOOL: { status: 404, description: 'No tool has this name.', mcp: 'protocol_error' },
  UNKNOWN_PROMPT: {
    status: 404,
    description:
      'MCP `prompts/get` of a name no prompt has (a JSON-RPC -32602 error whose message lists the prompts).',
    mcp: 'protocol_error',
  },
  BATCH_TOO_LARGE: {
    status: 413,
    description:
      "A request of an MCP JSON-RPC batch left unrun because the batch's answers reached `MCP_BATCH_MAX_BYTES` (a JSON-RPC -32000 error in its place); send it again alone or in a smaller batch.",
    mcp: 'protocol_error',
  },
  DUPLICATE_REQUEST_ID: {
    status: 409,
    description:
      'An MCP JSON-RPC request whose id is already used by a request in flight on the same session (a JSON-RPC -32600 error at once); give each request its own id.',
    mcp: 'protocol_error',
  },
  METHOD_NOT_ALLOWED: { status: 405, description: 'The path exists but not with this HTTP method.' },
  PAYLOAD_TOO_LARGE: { status: 413, description: 'The request body is over the size limit.' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, description: 'The request body must be JSON.' },
  RATE_LIMITED: {
    status: 429,
    description: 'Too many calls; `Retry-After` (and `details.retryAfterSeconds`) says when to try again.',
  },
  SUBSCRIPTION_LIMIT: {
    status: 429,
    description:
      'The connection holds as many subscriptions as it may; `details.limit` is the bound and `details.setting` its setting. End one first.',
  },
  GRAPHQL_PARSE_FAILED: { status: 400, description: 'The GraphQL document does not parse.' },
  GRAPHQL_VALIDATION_FAILED: {
    status: 400,
    description: 'The GraphQL document is not valid against the schema.',
  },
  GRAPHQL_LIMIT_EXCEEDED: {
    status: 400,
    description:
      'The GraphQL document is over a limit: `details.limit` is `tokens`, `aliases`, `depth` or `cost`, `details.max` the bound (and `details.found` what the document has, when counted).',
  },
  // The GraphQL server's own codes for a request it cannot read as an operation (GraphQL over HTTP only).
  BAD_REQUEST: {
    status: 400,
    description:
      'A GraphQL request without a `query` string, or with `variables` or `extensions` that are not objects.',
  },
  OPERATION_RESOLUTION_FAILURE: {
    status: 400,
    description:
      'The GraphQL document has several operations and `operationName` names none of them (or is missing).',
  },
  CSRF_HEADER_REQUIRED: {
    status: 403,
    description:
      'A GraphQL operation over GET needs an `X-GraphQL-CSRF` header (any value) or a non-form Content-Type, so that browsers preflight it.',
  },
  PERSISTED_QUERY_NOT_FOUND: {
    status: 404,
    description:
      'Automatic persisted queries: no document is registered under `extensions.persistedQuery.sha256Hash` (message `PersistedQueryNotFound`). Send the document with its hash once; later requests may send the hash alone.',
  },
  PERSISTED_QUERY_NOT_SUPPORTED: {
    status: 400,
    description:
      'Automatic persisted queries are off (`APQ_MAX_ENTRIES=0`) and the hash is not a listed operation (message `PersistedQueryNotSupported`): send the document.',
  },
  PERSISTED_QUERY_MISMATCH: {
    status: 400,
    description:
      "`extensions.persistedQuery.sha256Hash` is not the SHA-256 of the document sent with it (or not that listed operation's key).",
  },
  PERSISTED_OPERATION_REQUIRED: {
    status: 403,
    description:
      'The server runs only listed operations (`PERSISTED_OPERATIONS_ONLY`) and the document sent is not one: send a listed operation by its key in `extensions.persistedQuery.sha256Hash`.',
  },
  PERSISTED_OPERATION_NOT_FOUND: {
    status: 404,
    description:
      'The server runs only listed operations (`PERSISTED_OPERATIONS_ONLY`) and none has the key in `extensions.persistedQuery.sha256Hash`.',
  },
  INTERNAL: {
    status: 500,
    description: 'An unexpected failure; it is logged, and no internals are returned.',
  },
  SERVER_STARTING: {
    status: 503,
    description:
      'The server is starting and a request waited for it longer than 60 s (or it is stopping, or its start failed); retry after `Retry-After` seconds. Requests that arrive during a normal start simply wait until it is ready.',
  },
  DATABASE_UNAVAILABLE: {
    status: 503,
    description:
      'The database did not answer in time or is unreachable; retry after `Retry-After` (`details.retryAfterSeconds`) seconds. `details.reason` says which (e.g. `lock timeout`).',
  },
} as const satisfies ErrorCodeTable;

/** The one lookup from a code to its meaning, built from the platform's codes and every module's. */
export class ErrorTable {
  readonly #codes = new Map<string, ErrorCodeSpec>();

  constructor(...tables: readonly ErrorCodeTable[]) {
    for (const table of tables) {
      for (const [code, spec] of Object.entries(table)) {
        if (this.#codes.has(code)) throw new Error(`error code ${code} is defined twice`);
        this.#codes.set(code, spec);
      }
    }
  }

  /** Unknown codes are a bug, but never a reason to answer 200: they count as internal. */
  spec(code: string): ErrorCodeSpec {
    return this.#codes.get(code) ?? PLATFORM_ERRORS.INTERNAL;
  }

  status(code: string): number {
    return this.spec(code).status;
  }

  has(code: string): boolean {
    return this.#codes.has(code);
  }

  entries(): Array<[string, ErrorCodeSpec]> {
    return [...this.#codes.entries()].sort(([a], [b]) => a.localeCompare(b));
  }
}
