import type { GraphQLError } from 'graphql';
import {
  createGraphQLError,
  createYoga,
  maskError as defaultMaskError,
  type YogaServerInstance,
} from 'graphql-yoga';
import type { AppDeps } from '../../deps.ts';
import { isAppError } from '../errors.ts';
import { identifyClient, nodeHeaders } from '../http/client-identity.ts';
import type { ServerContext } from '../http/http-routes.ts';
import type { Logger } from '../observability/logger.ts';
import type { GraphQLContext } from './context.ts';
import { rateLimitPlugin } from './rate-limit.ts';
import { schema } from './schema.ts';

export const GRAPHQL_PATH = '/graphql';

/** Server context on both transports: HTTP (Node adapter) and graphql-ws (the upgrade request). */
export type GraphQLServerContext = ServerContext;
export type GraphQLServer = YogaServerInstance<GraphQLServerContext, GraphQLContext>;

export function createGraphQLServer(deps: AppDeps): GraphQLServer {
  const { config, logger } = deps;
  return createYoga<GraphQLServerContext, GraphQLContext>({
    schema,
    graphqlEndpoint: GRAPHQL_PATH,
    landingPage: false,
    graphiql: { title: 'Vigil GraphQL', subscriptionsProtocol: 'WS' },
    logging: yogaLogger(logger.child({ component: 'graphql' })),
    context: ({ request, req }) => ({
      deps,
      viewer: identifyClient(req ? nodeHeaders(req) : request.headers, req, config.trustProxy),
    }),
    maskedErrors: {
      // Domain errors keep their message and code; anything else becomes "Unexpected error." and is
      // logged here. Never in development mode either: no stack trace reaches a client.
      maskError: (error, message) => {
        // Duck-typed: GraphQLError may come from graphql's CJS or ESM build, so instanceof is unreliable.
        const original = (error as { originalError?: unknown }).originalError ?? error;
        if (isAppError(original)) {
          const located = error as Partial<GraphQLError>;
          return createGraphQLError(original.message, {
            nodes: located.nodes,
            path: located.path,
            extensions: { code: original.code, ...original.details },
          });
        }
        const masked = defaultMaskError(error, message, false);
        if (masked !== error) logger.error({ err: original }, 'unexpected error in GraphQL operation');
        return masked;
      },
    },
    plugins: [rateLimitPlugin(config.rateLimit)],
  });
}

function yogaLogger(logger: Logger) {
  const at =
    (level: 'debug' | 'info' | 'warn' | 'error') =>
    (...args: unknown[]) => {
      const [first, ...rest] = args;
      if (first instanceof Error) logger[level]({ err: first, extra: rest }, first.message);
      else logger[level]({ extra: rest.length ? rest : undefined }, String(first));
    };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}
