import { useServer } from 'graphql-ws/use/ws';
import type { WebSocketServer } from 'ws';
import type { OperationRunner } from '../operations/runner.ts';

/**
 * graphql-ws over the operation runner, so the plugins that guard HTTP (rate limits, error
 * masking) guard WebSocket operations too. Returns a dispose function.
 */
export function serveGraphqlWs(runner: OperationRunner, wss: WebSocketServer) {
  const prepared = new WeakMap<
    object,
    Extract<Awaited<ReturnType<OperationRunner['prepare']>>, { ok: true }>
  >();
  return useServer(
    {
      execute: (args) => prepared.get(args.rootValue as object)!.execute(args),
      subscribe: (args) => prepared.get(args.rootValue as object)!.subscribe(args),
      onSubscribe: async (ctx, _id, payload) => {
        const result = await runner.prepare({
          document: payload.query,
          operationName: payload.operationName ?? undefined,
          variables: payload.variables ?? undefined,
          transport: { req: ctx.extra.request, socket: ctx.extra.socket },
        });
        if (!result.ok) return [...result.errors];
        // The root value is only a key back to this operation's enveloped execute/subscribe.
        const rootValue = {};
        prepared.set(rootValue, result);
        return { ...result.args, rootValue };
      },
    },
    wss,
  );
}
