import { randomUUID } from 'node:crypto';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Caller } from '../operations/tool.ts';
import { MAX_MCP_BODY_BYTES } from './mcp-body.ts';
import { SessionExchanges } from './mcp-exchanges.ts';
import type { CallerSource, McpRequestExtra } from './mcp-server.ts';
import type { HttpSession } from './mcp-session-traffic.ts';
import type { SessionTable } from './mcp-sessions.ts';

/**
 * Key of the caller in the SDK's `authInfo.extra`: the SDK hands `authInfo` to every handler of the
 * messages a request carries, which is how each tool call learns the request (and so the client)
 * it came from.
 */
export const CALLER = 'vigil.caller';

/** What opening a session needs of the endpoint. */
export interface SessionOpening {
  readonly sessions: SessionTable<HttpSession>;
  readonly createServer: (caller: CallerSource) => Server;
  readonly keepAliveMs: number;
  readonly batchMaxBytes: number;
  readonly now: () => number;
}

/**
 * Runs the `initialize` request on a new server and transport, for a client holding a reserved
 * place. The session exists once the SDK has accepted the request; a refused one leaves nothing.
 */
export async function initializeSession(
  opening: SessionOpening,
  request: Request,
  parsedBody: unknown,
  authInfo: AuthInfo,
): Promise<{ session: HttpSession | undefined; response: Response }> {
  const { sessions, now } = opening;
  const clientId = authInfo.clientId;
  // The reservation ends when the session is registered (or its initialization fails), so the
  // client is never counted twice.
  let reserved = true;
  const settle = () => {
    if (reserved) sessions.settle(clientId);
    reserved = false;
  };
  const server = opening.createServer(callerOfRequest);
  let session: HttpSession | undefined;
  const exchanges = new SessionExchanges(opening.batchMaxBytes, now);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: randomUUID,
    maxRequestBodySize: MAX_MCP_BODY_BYTES,
    keepAliveMs: opening.keepAliveMs,
    onsessioninitialized: (id) => {
      session = {
        id,
        clientId,
        transport,
        server,
        lastActive: now(),
        open: 0,
        stream: undefined,
        stopExpiry: () => {},
        exchanges,
        answering: new Set(),
      };
      sessions.add(session);
      settle();
    },
  });
  transport.onclose = () => {
    session?.stopExpiry();
    if (session) sessions.delete(session);
  };
  let response: Response;
  try {
    await server.connect(transport);
    exchanges.attach(transport);
    response = await transport.handleRequest(request, { parsedBody, authInfo });
  } finally {
    settle();
  }
  // The initialize request was refused (bad headers, a batch): nothing was registered.
  if (!session) await transport.close().catch(() => {});
  return { session, response };
}

/** The caller the HTTP layer attached to the request that carried this message. */
function callerOfRequest(extra: McpRequestExtra): Caller {
  const caller = extra.authInfo?.extra?.[CALLER] as Caller | undefined;
  return caller ?? {};
}
