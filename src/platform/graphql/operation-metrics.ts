import {
  type DocumentNode,
  type ExecutionResult,
  type GraphQLError,
  getOperationAST,
  Kind,
  type SelectionSetNode,
} from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import { asDatabaseUnavailable } from '../db/db-errors.ts';
import { isAppError } from '../errors.ts';
import type { GraphQLMetrics, Surface } from '../observability/metrics.ts';

export interface OperationMetricsOptions {
  readonly metrics: GraphQLMetrics;
  /** A call refused by a rate limit (`RATE_LIMITED`), on the surface it came in on. */
  readonly rateLimited?: (surface: Surface) => void;
}

/** Codes only a request's refusal before parsing carries (never an operation's own errors). */
const REQUEST_CODES = new Set([
  'CSRF_HEADER_REQUIRED',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'PERSISTED_QUERY_NOT_FOUND',
  'PERSISTED_QUERY_NOT_SUPPORTED',
  'PERSISTED_QUERY_MISMATCH',
  'PERSISTED_OPERATION_NOT_FOUND',
  'PERSISTED_OPERATION_REQUIRED',
]);

/** Counts what a phase threw: its code, and a rate-limit refusal on the surface it came in on. */
type Refused = (error: unknown, fallback: string, context: unknown) => void;

/**
 * Counts operations by type and root field, and errors by code, on every surface: graphql-ws, MCP
 * and REST run through the same envelop pipeline as `/graphql`. Labels come from the schema and the
 * server's error codes, never from the client's operation names or messages.
 *
 * Must come first among the plugins: its instrumentation wraps each phase with every other plugin's
 * hooks inside, so it also sees what a guard throws before execution (FORBIDDEN, RATE_LIMITED) and
 * parse errors the parse cache throws again for a repeated document.
 */
export function operationMetricsPlugin(options: OperationMetricsOptions): Plugin {
  const { metrics } = options;
  const refused: Refused = (error, fallback, context) => {
    if (isAbort(error)) return;
    const code = codeOf(error as GraphQLError, fallback);
    metrics.error(code);
    if (code === 'RATE_LIMITED') options.rateLimited?.(surfaceOf(context));
  };
  const counted = (result: ExecutionResult) => {
    for (const error of result.errors ?? []) metrics.error(codeOf(error, 'INTERNAL'));
  };
  return {
    // Requests refused before any GraphQL phase (body, CSRF, persisted operations) reach no hook
    // above; their answer does. Only codes nothing later produces, so nothing is counted twice.
    onResultProcess({ result }) {
      if (isAsyncIterable(result)) return;
      for (const single of Array.isArray(result) ? result : [result]) countRequestRefusals(metrics, single);
    },
    instrumentation: {
      parse: guardedPhase('GRAPHQL_PARSE_FAILED', refused),
      execute: guardedPhase('INTERNAL', refused),
      subscribe: guardedPhase('INTERNAL', refused),
    },
    onValidate() {
      return ({ result }) => {
        for (const error of result) metrics.error(codeOf(error, 'GRAPHQL_VALIDATION_FAILED'));
      };
    },
    onExecute({ args }) {
      countOperation(metrics, args);
      return {
        onExecuteDone({ result }) {
          if (isAsyncIterable(result)) return { onNext: ({ result: next }) => counted(next) };
          counted(result);
          return undefined;
        },
      };
    },
    onSubscribe({ args }) {
      countOperation(metrics, args);
      return {
        onSubscribeResult({ result }) {
          if (isAsyncIterable(result)) return { onNext: ({ result: next }) => counted(next) };
          counted(result);
          return undefined;
        },
      };
    },
  };
}

/**
 * Wraps a phase (parse, execute, subscribe) so that whatever it throws, or rejects with, is counted
 * as refused (a code without one of its own gets `fallback`) and then thrown on unchanged.
 */
function guardedPhase(fallback: string, refused: Refused) {
  return ({ context }: { context: unknown }, wrapped: () => void | Promise<void>): void | Promise<void> => {
    let outcome: void | Promise<void>;
    try {
      outcome = wrapped();
    } catch (error) {
      refused(error, fallback, context);
      throw error;
    }
    if (outcome instanceof Promise) {
      return outcome.catch((error: unknown) => {
        refused(error, fallback, context);
        throw error;
      });
    }
    return outcome;
  };
}

function countRequestRefusals(metrics: GraphQLMetrics, result: ExecutionResult): void {
  for (const error of result.errors ?? []) {
    const code = (error as GraphQLError).extensions?.code;
    if (typeof code === 'string' && REQUEST_CODES.has(code)) metrics.error(code);
  }
}

/** Counts the operation once per root field it selects, by operation type. */
function countOperation(
  metrics: GraphQLMetrics,
  { document, operationName }: { document: DocumentNode; operationName?: string | null },
): void {
  const ast = getOperationAST(document, operationName);
  if (!ast) return;
  for (const field of rootFields(ast.selectionSet, document)) metrics.operation(ast.operation, field);
}

/**
 * The code a client receives for this error, as error masking (yoga.ts) decides it: its own
 * `extensions.code`, a database outage, a domain error's code, else INTERNAL for anything thrown
 * that is not a GraphQL error; GraphQL's own errors without a code get `fallback`.
 */
export function codeOf(error: GraphQLError, fallback: string): string {
  const own = error?.extensions?.code;
  if (typeof own === 'string') return own;
  const original = error?.originalError;
  if (!original) return error?.name === 'GraphQLError' ? fallback : 'INTERNAL';
  const outage = asDatabaseUnavailable(original);
  if (outage) return outage.code;
  if (isAppError(original)) return original.code;
  const inner = (original as Partial<GraphQLError>).extensions?.code;
  return typeof inner === 'string' ? inner : 'INTERNAL';
}

/**
 * Where an operation came in, from what its transport put in the initial context: a graphql-ws
 * socket, or the HTTP request that carried it (in-process calls without one run for the stdio
 * MCP server).
 */
export function surfaceOf(context: unknown): Surface {
  const initial = (context ?? {}) as { socket?: unknown; request?: Request };
  if (initial.socket) return 'graphql-ws';
  const path = initial.request ? new URL(initial.request.url).pathname : '/';
  if (path.startsWith('/graphql')) return 'graphql';
  if (path.startsWith('/mcp')) return 'mcp';
  if (path === '/') return 'stdio';
  return 'rest';
}

/** Root field names of an operation, through fragments (aliases do not matter: names are the schema's). */
function rootFields(
  selectionSet: SelectionSetNode,
  document: DocumentNode,
  seen = new Set<string>(),
): string[] {
  const names = new Set<string>();
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      names.add(selection.name.value);
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      for (const name of rootFields(selection.selectionSet, document, seen)) names.add(name);
    } else if (!seen.has(selection.name.value)) {
      seen.add(selection.name.value);
      const fragment = document.definitions.find(
        (d) => d.kind === Kind.FRAGMENT_DEFINITION && d.name.value === selection.name.value,
      );
      if (fragment?.kind === Kind.FRAGMENT_DEFINITION) {
        for (const name of rootFields(fragment.selectionSet, document, seen)) names.add(name);
      }
    }
  }
  return [...names];
}

function isAbort(error: unknown): boolean {
  return error instanceof Error && error.name === 'AbortError';
}
