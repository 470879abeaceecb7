import type { GraphQLError, GraphQLSchema } from 'graphql';
import {
  type CORSOptions,
  createGraphQLError,
  createYoga,
  maskError as defaultMaskError,
  type MaskError,
  type YogaInitialContext,
  type YogaServerInstance,
  type YogaServerOptions,
} from 'graphql-yoga';
import { asDatabaseUnavailable, DATABASE_RETRY_AFTER_SECONDS, sqlState } from '../db/db-errors.ts';
import { isAppError } from '../errors.ts';
import type { Viewer } from '../http/client-identity.ts';
import type { ServerContext } from '../http/http-routes.ts';
import { originList } from '../http/origins.ts';
import type { Logger } from '../observability/logger.ts';
import { type AroundOperation, aroundOperationPlugin } from './around-operation.ts';
import type { BaseContext } from './base-context.ts';
import type { DocumentLimits } from './document-limits.ts';
import { GraphiqlPage, type GraphiqlTab, graphiqlPlugin } from './graphiql.ts';
import { boundMessage } from './graphql-errors.ts';
import { CSRF_HEADERS, httpGuardPlugin } from './http-guard.ts';
import { operationGuardPlugin } from './operation-guard.ts';
import { type OperationMetricsOptions, operationMetricsPlugin } from './operation-metrics.ts';
import { boundedParseCache } from './parse-cache.ts';
import { type RateLimitOptions, rateLimitPlugin } from './rate-limit.ts';
import { scopeGuardPlugin } from './scope-guard.ts';
import { multipartSubscriptionsPlugin } from './transports/multipart-subscriptions.ts';
import { type PersistedOperations, persistedOperationsPlugin } from './transports/persisted-operations.ts';
import { sharedSubscriptionsPlugin } from './transports/shared-execution.ts';

export const GRAPHQL_PATH = '/graphql';

/**
 * Server context on every transport: HTTP (the Node adapter's req/res), graphql-ws (the upgrade
 * request and socket) and the in-process operation runner (which may name the viewer itself).
 */
export type GraphQLServerContext = ServerContext & { readonly viewer?: Viewer };
export type GraphQLServer = YogaServerInstance<GraphQLServerContext, BaseContext>;

export interface GraphQLServerOptions<Context extends BaseContext> {
  readonly schema: GraphQLSchema;
  /** Builds an operation's context from the transport's initial context. */
  readonly context: (initial: YogaInitialContext & GraphQLServerContext) => Context | Promise<Context>;
  readonly rateLimit: RateLimitOptions;
  readonly logger: Logger;
  /** Browser origins that may call across origins; others get no CORS headers at all. */
  readonly allowedOrigins: readonly string[];
  /** Bounds on every document, on every surface. */
  readonly documentLimits: DocumentLimits;
  /** Largest request body `/graphql` reads over HTTP. */
  readonly maxBodyBytes: number;
  /** Serve `__schema`/`__type` (on every surface). GraphiQL needs it. */
  readonly introspection: boolean;
  /** Serve GraphiQL to browsers at GET /graphql, opening with these example operations. */
  readonly graphiql: false | { readonly tabs: readonly GraphiqlTab[] };
  /** Wraps every operation's execution (and subscription setup), e.g. in a per-operation scope. */
  readonly aroundOperation?: AroundOperation;
  /** HTTP status of a domain error code (the error table): 429 and 503 also set the response's. */
  readonly statusOf?: (code: string) => number;
  /** Counts operations, errors by code and rate-limit refusals (on every surface). */
  readonly metrics?: OperationMetricsOptions;
  /** Which documents clients may run and register by hash (allow-list, APQ). */
  readonly persisted?: PersistedOperations;
}

export function createGraphQLServer<Context extends BaseContext>(
  options: GraphQLServerOptions<Context>,
): GraphQLServer {
  return createYoga<GraphQLServerContext, BaseContext>({
    schema: options.schema,
    graphqlEndpoint: GRAPHQL_PATH,
    landingPage: false,
    cors: corsByAllowList(options.allowedOrigins),
    // graphiqlPlugin serves the page (offline, compressed, under a CSP); Yoga's renderer is off.
    graphiql: false,
    // Bodies are read by httpGuardPlugin, bounded; no file uploads (multipart is a CSRF vector).
    multipart: false,
    parserAndValidationCache: { documentCache: boundedParseCache(), errorCache: boundedParseCache() },
    // The guard reads every body it accepts, bounded, and refuses other content types unread.
    maxRequestBodySize: false,
    logging: yogaLogger(options.logger.child({ component: 'graphql' })),
    context: (initial) => options.context(initial as YogaInitialContext & GraphQLServerContext),
    maskedErrors: { maskError: errorMasking(options.logger, options.statusOf) },
    plugins: plugins(options),
  });
}

/**
 * CORS by allow-list: a listed origin gets itself back, without credentials (clients send keys in
 * headers); any other origin gets no CORS headers, so a browser page elsewhere cannot read.
 * PUT and DELETE are graphql-sse's (reserved streams at /graphql/stream, preflighted here).
 */
function corsByAllowList(allowedOrigins: readonly string[]): (request: Request) => CORSOptions {
  const origins = originList(allowedOrigins);
  return (request) => {
    const origin = origins.listed(request);
    return origin
      ? { origin, credentials: false, methods: ['GET', 'POST', 'PUT', 'DELETE', 'OPTIONS'], maxAge: 600 }
      : false;
  };
}

/**
 * The plugins, in order. Order matters: a request or document the guards refuse (a caller without
 * the scope included) never reaches the rate limiter, so it spends nothing.
 */
function plugins<Context extends BaseContext>(
  options: GraphQLServerOptions<Context>,
): YogaServerOptions<GraphQLServerContext, BaseContext>['plugins'] {
  const graphiql =
    options.graphiql &&
    new GraphiqlPage({
      title: 'Vigil GraphQL',
      tabs: options.graphiql.tabs,
      // GraphiQL posts JSON (already preflighted); the header also covers GET if it is switched to it.
      additionalHeaders: { [CSRF_HEADERS[0]]: '1' },
    });
  return [
    // First: its instrumentation wraps every other plugin's hooks, so it sees what they refuse.
    ...(options.metrics ? [operationMetricsPlugin(options.metrics)] : []),
    ...(graphiql ? [graphiqlPlugin(graphiql, GRAPHQL_PATH)] : []),
    httpGuardPlugin({ maxBodyBytes: options.maxBodyBytes }),
    ...(options.persisted?.active ? [persistedOperationsPlugin(options.persisted)] : []),
    operationGuardPlugin({ limits: options.documentLimits, introspection: options.introspection }),
    scopeGuardPlugin(options.statusOf),
    rateLimitPlugin(options.rateLimit),
    // Subscriptions whose events resolve alike for everyone execute each event once.
    sharedSubscriptionsPlugin(),
    ...(options.aroundOperation ? [aroundOperationPlugin(options.aroundOperation)] : []),
    // After Yoga's result processors: it takes over only where they found none.
    multipartSubscriptionsPlugin(),
  ];
}

/**
 * Domain errors keep their message and code; anything else becomes "Unexpected error." and is
 * logged here. Never in development mode either: no stack trace reaches a client.
 */
function errorMasking(logger: Logger, statusOf: ((code: string) => number) | undefined): MaskError {
  return (error, message) => {
    // Duck-typed: GraphQLError may come from graphql's CJS or ESM build, so instanceof is unreliable.
    const original = (error as { originalError?: unknown }).originalError ?? error;
    const located = error as Partial<GraphQLError>;
    const outage = asDatabaseUnavailable(original);
    if (outage) {
      // An outage, not a bug: a retryable code and 503 (where the transport has a status).
      logger.warn({ reason: outage.reason, sqlstate: sqlState(original) }, 'database unavailable');
      return createGraphQLError(outage.message, {
        nodes: located.nodes,
        path: located.path,
        extensions: {
          code: outage.code,
          ...outage.details,
          http: { status: 503, headers: { 'retry-after': String(DATABASE_RETRY_AFTER_SECONDS) } },
        },
      });
    }
    if (isAppError(original)) {
      return createGraphQLError(boundMessage(original.message), {
        nodes: located.nodes,
        path: located.path,
        extensions: {
          code: original.code,
          ...original.details,
          ...retryableHttp(statusOf?.(original.code), original.details?.retryAfterSeconds),
        },
      });
    }
    const masked = defaultMaskError(error, message, false) as GraphQLError;
    if (masked === error) return masked;
    logger.error({ err: original }, 'unexpected error in GraphQL operation');
    return asInternal(masked);
  };
}

/** Yoga says INTERNAL_SERVER_ERROR; the error table (REST, MCP) says INTERNAL: one code everywhere. */
function asInternal(masked: GraphQLError): GraphQLError {
  return createGraphQLError(masked.message, {
    nodes: masked.nodes,
    source: masked.source,
    positions: masked.positions,
    path: masked.path,
    ...(masked.coordinate ? { coordinate: masked.coordinate } : {}),
    extensions: { ...masked.extensions, code: 'INTERNAL' },
  });
}

/**
 * Yoga's own log lines. An error it reports that is a domain error (an unknown id, a refused
 * argument: the caller's mistake, answered with its code) is logged at debug, not error: error is
 * for what an operator must look at, and unexpected errors are logged as such by `maskError`.
 */
function yogaLogger(logger: Logger) {
  const at =
    (level: 'debug' | 'info' | 'warn' | 'error') =>
    (...args: unknown[]) => {
      const [first, ...rest] = args;
      if (level === 'error' && isDomainError(first)) logger.debug({ err: first }, (first as Error).message);
      else if (first instanceof Error) logger[level]({ err: first, extra: rest }, first.message);
      else logger[level]({ extra: rest.length ? rest : undefined }, String(first));
    };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

/**
 * "Try again later" (429, 503) is what a transport must tell an HTTP client, with Retry-After: such
 * a domain error sets the response's status as the rate limiter's own 429 does. Other domain errors
 * stay GraphQL errors in a 200, next to whatever data the operation still has.
 */
function retryableHttp(status: number | undefined, retryAfter: unknown) {
  if (status !== 429 && status !== 503) return {};
  const seconds = typeof retryAfter === 'number' && retryAfter > 0 ? Math.ceil(retryAfter) : undefined;
  return { http: { status, headers: seconds ? { 'Retry-After': String(seconds) } : {} } };
}

function isDomainError(error: unknown): boolean {
  const original = (error as { originalError?: unknown } | null)?.originalError;
  return isAppError(original) || isAppError(error);
}
