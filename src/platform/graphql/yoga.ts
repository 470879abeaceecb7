import { GraphQLError } from 'graphql';
import { createYoga, maskError as defaultMaskError, type YogaServerInstance } from 'graphql-yoga';
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
      maskError: (error, message, isDev) => {
        const original = error instanceof GraphQLError ? error.originalError : error;
        if (isAppError(original)) {
          return new GraphQLError(original.message, {
            ...(error instanceof GraphQLError ? { nodes: error.nodes, path: error.path } : {}),
            extensions: { code: original.code, ...original.details },
          });
        }
        if (!(original instanceof GraphQLError) && !(error instanceof GraphQLError && !original)) {
          logger.error({ err: original ?? error }, 'unexpected error in GraphQL operation');
        }
        return defaultMaskError(error, message, isDev);
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
