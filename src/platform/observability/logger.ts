import { fstatSync } from 'node:fs';
import { pino } from 'pino';
import { isAppError } from '../errors.ts';

export type Logger = pino.Logger;

export interface LoggerOptions {
  /** Log bytes held while stderr is not being read; past this, lines are dropped (and counted). */
  readonly bufferBytes?: number;
  readonly base?: Record<string, unknown>;
}

export const DEFAULT_LOG_BUFFER_BYTES = 4 * 1024 * 1024;

/**
 * Everything about a log line but where it goes: level, fields, and the redaction of secret-named
 * fields (tests build a logger on a memory stream with the same options, to read what would be logged).
 */
export function loggerOptions(
  level: pino.LevelWithSilent,
  base?: Record<string, unknown>,
): pino.LoggerOptions {
  return {
    level,
    base: { service: 'vigil', ...base },
    timestamp: pino.stdTimeFunctions.isoTime,
    serializers: { err: serializeError, error: serializeError },
    redact: {
      paths: [
        '*.password',
        '*.smtp_password',
        '*.bot_token',
        '*.auth_token',
        '*.signing_secret',
        '*.smtpPassword',
        '*.botToken',
        '*.authToken',
        '*.signingSecret',
        '*.apiKey',
        'req.headers["x-api-key"]',
      ],
      censor: '<redacted>',
    },
  };
}

/** At exit, how long the last synchronous flush may wait for a stderr that does not drain. */
const EXIT_FLUSH_MS = 1_000;

/**
 * JSON logs on stderr: stdout stays free for protocol traffic (MCP over stdio).
 *
 * Writes are asynchronous and bounded. A synchronous write to a pipe nobody reads blocks the whole
 * process once the pipe's buffer (~64 KB) is full, so a stalled log collector would freeze every
 * client; here the lines wait in a buffer of `bufferBytes`, and past that they are dropped, with a
 * warning saying how many once stderr drains again. pino flushes the buffer at exit (a graceful
 * stop or a fatal error both end in `process.exit`), for at most EXIT_FLUSH_MS.
 */
export function createLogger(level: pino.LevelWithSilent, options: LoggerOptions = {}): Logger {
  nonBlockingStderr();
  let flushDeadline = Number.POSITIVE_INFINITY;
  const destination = pino.destination({
    fd: 2,
    sync: false,
    maxLength: options.bufferBytes ?? DEFAULT_LOG_BUFFER_BYTES,
    // A full pipe answers EAGAIN: asynchronous writes retry until it drains; the exit flush gives up.
    retryEAGAIN: () => Date.now() < flushDeadline,
  });
  const flushSync = destination.flushSync.bind(destination);
  destination.flushSync = () => {
    nonBlockingStderr();
    flushDeadline = Date.now() + EXIT_FLUSH_MS;
    try {
      flushSync();
    } catch {
      // stderr is still blocked: the rest of the buffer is lost, the exit is not.
    } finally {
      flushDeadline = Number.POSITIVE_INFINITY;
    }
  };
  // A failing log destination must never take the server down (EPIPE is handled by pino).
  destination.on('error', () => {});

  const logger = pino(loggerOptions(level, options.base), destination);

  let dropped = 0;
  destination.on('drop', () => {
    dropped++;
  });
  destination.on('drain', () => {
    if (dropped === 0) return;
    const lines = dropped;
    dropped = 0;
    logger.warn({ dropped: lines }, 'log lines dropped: stderr was not read fast enough');
  });
  return logger;
}

/**
 * A write to a full pipe must answer EAGAIN, never wait: a waiting write would hold a thread (and,
 * at exit, the process) until someone reads. Node makes a stderr pipe non-blocking when it opens it,
 * but a child process that inherits stderr (a build tool in development) switches it back for
 * everyone sharing it; this switches it again. Files and terminals are left as they are.
 */
function nonBlockingStderr(): void {
  try {
    const stat = fstatSync(2);
    if (!stat.isFIFO() && !stat.isSocket()) return;
    const handle = (process.stderr as unknown as { _handle?: { setBlocking?: (on: boolean) => number } })
      ._handle;
    handle?.setBlocking?.(false);
  } catch {
    // No stderr, or not a stream: nothing can block on it.
  }
}

/**
 * What a database driver puts on its errors that is the statement or its values: postgres.js's
 * `query`, `parameters`, `args` and `types`, PGlite's `query`, `params` and `queryOptions`,
 * drizzle's `query` and `params`, and the server's `detail`, `where` and `internal_query` (which can
 * quote a whole failing row). None of it reaches a log line.
 */
const STATEMENT_FIELDS = new Set([
  'query',
  'params',
  'parameters',
  'args',
  'types',
  'queryOptions',
  'detail',
  'where',
  'internal_query',
  'internalQuery',
]);

/** Causes followed at most (a chain is rarely longer than three). */
const MAX_CAUSES = 5;

/**
 * A domain error is an expected outcome (mostly a client's mistake): its code, never a stack. Any
 * other error: its type, message, stack and fields, and its causes the same way, without the
 * statement fields above, and with the parameters cut out of drizzle's `Failed query` message.
 */
export function serializeError(error: unknown): unknown {
  if (isAppError(error)) return { type: error.name, code: error.code, message: error.message };
  return isErrorLike(error) ? withoutStatement(error, 0) : error;
}

function withoutStatement(error: ErrorLike, depth: number): Record<string, unknown> {
  const message = statementFree(error.message);
  const frames =
    typeof error.stack === 'string' ? error.stack.split('\n').filter((l) => /^\s+at /.test(l)) : [];
  const type = (error.constructor !== Object && error.constructor?.name) || error.name || 'Error';
  const out: Record<string, unknown> = {
    type,
    message,
    stack: [`${type}: ${message}`, ...frames].join('\n'),
  };
  for (const [key, value] of Object.entries(error)) {
    if (STATEMENT_FIELDS.has(key) || key === 'cause' || key in out) continue;
    if (!isErrorLike(value)) out[key] = value;
    else if (depth < MAX_CAUSES) out[key] = withoutStatement(value, depth + 1);
  }
  const { errors } = error as { errors?: unknown };
  if (Array.isArray(errors)) {
    out.aggregateErrors = errors.map((e) =>
      isErrorLike(e) && depth < MAX_CAUSES ? withoutStatement(e, depth + 1) : e,
    );
  }
  const { cause } = error as { cause?: unknown };
  if (cause !== undefined && depth < MAX_CAUSES) {
    out.cause = isErrorLike(cause) ? withoutStatement(cause, depth + 1) : cause;
  }
  return out;
}

interface ErrorLike {
  readonly message: string;
  readonly stack?: unknown;
  readonly name?: string;
  readonly constructor?: { readonly name?: string };
}

function isErrorLike(value: unknown): value is ErrorLike {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { message?: unknown }).message === 'string'
  );
}

/** drizzle's query error reads `Failed query: <statement>\nparams: <values>`: neither is logged. */
function statementFree(message: string): string {
  return message.startsWith('Failed query: ')
    ? 'Failed query (its statement and values are not logged)'
    : message;
}
