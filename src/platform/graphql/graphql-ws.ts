import { type ExecutionArgs, type ExecutionResult, GraphQLError } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import type { WebSocketServer } from 'ws';
import type { GraphQLServer } from './yoga.ts';

interface Enveloped {
  execute: (args: ExecutionArgs) => unknown;
  subscribe: (args: ExecutionArgs) => unknown;
}

/**
 * graphql-ws over Yoga's envelop, so the plugins that guard HTTP (rate limits, error masking)
 * guard WebSocket operations too. Returns a dispose function.
 */
export function serveGraphqlWs(yoga: GraphQLServer, wss: WebSocketServer) {
  return useServer(
    {
      execute: (args) => runGuarded((args.rootValue as Enveloped).execute, args),
      subscribe: (args) => runGuarded((args.rootValue as Enveloped).subscribe, args),
      onSubscribe: async (ctx, _id, payload) => {
        const { schema, execute, subscribe, contextFactory, parse, validate } = yoga.getEnveloped({
          ...ctx,
          req: ctx.extra.request,
          socket: ctx.extra.socket,
          params: payload,
        });
        let document: ReturnType<typeof parse>;
        try {
          document = parse(payload.query);
        } catch (error) {
          return [isGraphQLError(error) ? error : new GraphQLError(String(error))];
        }
        const errors = validate(schema, document);
        if (errors.length > 0) return errors;
        return {
          schema,
          document,
          operationName: payload.operationName,
          variableValues: payload.variables,
          contextValue: await contextFactory(),
          rootValue: { execute, subscribe } satisfies Enveloped,
        };
      },
    },
    wss,
  );
}

/**
 * A plugin that rejects an operation (the rate limiter) throws a GraphQLError from `execute`;
 * over WebSocket that becomes an ordinary error result instead of tearing down the connection.
 */
async function runGuarded(
  run: (args: ExecutionArgs) => unknown,
  args: ExecutionArgs,
): Promise<ExecutionResult | AsyncIterable<ExecutionResult>> {
  try {
    return (await run(args)) as ExecutionResult | AsyncIterable<ExecutionResult>;
  } catch (error) {
    if (isGraphQLError(error)) return { errors: [error] };
    throw error;
  }
}

/** By name, not instanceof: graphql ships CJS and ESM builds and either may have made the error. */
function isGraphQLError(error: unknown): error is GraphQLError {
  return error instanceof Error && error.name === 'GraphQLError';
}
