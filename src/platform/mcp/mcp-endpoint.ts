import { rpcError } from './mcp-body.ts';
import { createMcpGuard } from './mcp-guard.ts';
import type { McpHttpEndpoint, McpHttpOptions } from './mcp-http.ts';

export const MCP_PATH = '/mcp';

/**
 * `/mcp` of the HTTP server, with the MCP SDK loaded by the first request that reaches it: the SDK
 * and its JSON Schema validator are a large share of the code, which a server that is never asked
 * for MCP over HTTP need not load at start. Until then there is no session to count, close or
 * sweep; Host and Origin are checked, and refusals answered, without it.
 */
export function createLazyMcpHttpEndpoint(options: McpHttpOptions): McpHttpEndpoint {
  const guard = createMcpGuard(options);
  let endpoint: McpHttpEndpoint | undefined;
  let loading: Promise<McpHttpEndpoint> | undefined;
  let closed = false;
  const load = () => {
    loading ??= import('./mcp-http.ts').then((module) => {
      endpoint = module.createMcpHttpEndpoint(options);
      return endpoint;
    });
    return loading;
  };
  return {
    get sessionCount() {
      return endpoint?.sessionCount ?? 0;
    },
    get streamCount() {
      return endpoint?.streamCount ?? 0;
    },
    sweep() {
      endpoint?.sweep();
    },
    closeClient(clientId) {
      return endpoint?.closeClient(clientId) ?? 0;
    },
    refusal: guard.refusal,
    async handle(request, context) {
      const refused = guard.refuse(request);
      if (refused) return refused;
      if (closed && !loading) return rpcError(503, -32000, 'the server is shutting down');
      return (await load()).handle(request, context);
    },
    async close(drainMs) {
      closed = true;
      if (loading) await (await loading).close(drainMs);
    },
  };
}
