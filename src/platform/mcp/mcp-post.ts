import {
  ErrorCode,
  isJSONRPCRequest,
  type JSONRPCErrorResponse,
  JSONRPCMessageSchema,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import { SlidingWindowStore } from '../graphql/sliding-window-store.ts';
import { idKey } from './mcp-exchanges.ts';

/** Messages one batch may hold: the SDK transport refuses a longer one whole (400), before any runs. */
export const MAX_BATCH_MESSAGES = 100;

export interface McpRateLimit {
  /** JSON-RPC requests per client per window; each element of a batch is one. */
  readonly max: number;
  readonly windowSeconds: number;
}

/**
 * Counts JSON-RPC requests per client over a sliding window, as the GraphQL limiter counts root
 * fields (same store): a batch is as many requests as it has elements, so a batch cannot make one
 * HTTP request worth a hundred for the price of one.
 */
export class McpRequestLimit {
  readonly #store = new SlidingWindowStore();
  readonly #fields = ['mcp'];

  constructor(readonly limit: McpRateLimit) {}

  /** Counts one request: undefined when it fits, else the seconds until one more would. */
  charge(clientId: string): number | undefined {
    const { max, windowSeconds } = this.limit;
    const windowMs = windowSeconds * 1000;
    if (this.#store.charge(clientId, this.#fields, max, windowMs, Date.now()) < 0) return undefined;
    return this.#store.retryAfterSeconds({ contextIdentity: clientId, fieldIdentity: 'mcp' }, max, windowMs);
  }
}

/** What a POST to a session carries, once screened. */
export interface Screened {
  /** What goes on to the transport (the refused requests taken out); undefined when nothing does. */
  readonly forward: unknown;
  /** The ids of the requests that go on. */
  readonly ids: readonly RequestId[];
  /** Answers to the requests refused at once. */
  readonly refusals: readonly JSONRPCErrorResponse[];
  readonly batch: boolean;
}

/**
 * Sorts the messages of one POST: a request whose id is in flight on the session (or repeated in
 * the batch) is refused, then each other request is counted against the client's limit and refused
 * past it. Notifications and responses go on as they are. A body the transport refuses whole (not
 * JSON-RPC, an empty or too long batch) goes on untouched, and nothing is counted: the transport
 * answers it with its own error.
 */
export function screenPost(
  body: unknown,
  inFlight: (id: RequestId) => boolean,
  charge: () => number | undefined,
): Screened {
  const batch = Array.isArray(body);
  const messages: unknown[] = batch ? body : [body];
  const untouched = { forward: body, ids: [], refusals: [], batch };
  if (messages.length === 0 || messages.length > MAX_BATCH_MESSAGES) return untouched;
  if (!messages.every((m) => JSONRPCMessageSchema.safeParse(m).success)) return untouched;
  const forward: unknown[] = [];
  const ids: RequestId[] = [];
  const refusals: JSONRPCErrorResponse[] = [];
  const seen = new Set<string>();
  for (const message of messages) {
    if (!isJSONRPCRequest(message)) {
      forward.push(message);
      continue;
    }
    const key = idKey(message.id);
    if (seen.has(key) || inFlight(message.id)) {
      refusals.push(duplicateId(message.id));
      continue;
    }
    seen.add(key);
    const retryAfter = charge();
    if (retryAfter !== undefined) {
      refusals.push(rateLimited(message.id, retryAfter));
      continue;
    }
    forward.push(message);
    ids.push(message.id);
  }
  return { forward: forward.length === 0 ? undefined : batch ? forward : forward[0], ids, refusals, batch };
}

function duplicateId(id: RequestId): JSONRPCErrorResponse {
  return {
    jsonrpc: '2.0',
    id,
    error: {
      code: ErrorCode.InvalidRequest,
      message:
        `id ${JSON.stringify(id)} is already used by a request in flight on this session; ` +
        'give each request its own id',
      data: { code: 'DUPLICATE_REQUEST_ID' },
    },
  };
}

/** Shaped as the other rate-limit errors of MCP (mcp-errors.ts: TRY_LATER, data.code, details). */
function rateLimited(id: RequestId, retryAfterSeconds: number): JSONRPCErrorResponse {
  return {
    jsonrpc: '2.0',
    id,
    error: {
      code: -32000,
      message: `Rate limit exceeded for MCP requests. Retry after ${retryAfterSeconds}s.`,
      data: { code: 'RATE_LIMITED', details: { retryAfterSeconds } },
    },
  };
}

/**
 * The transport's answer with the refusals added: first on its event stream; alone, as JSON, when
 * nothing went on (or only notifications, which the transport answers 202 without a body). Any
 * other answer (an error of the transport's own) is the POST's answer as it is.
 */
export function withRefusals(screened: Screened, response: Response | undefined): Response {
  const { refusals, batch, ids } = screened;
  if (refusals.length === 0 && response) return response;
  if (!response || ids.length === 0) {
    void response?.body?.cancel();
    const body = batch ? refusals : refusals[0];
    return new Response(JSON.stringify(body), {
      status: 200,
      headers: { 'content-type': 'application/json' },
    });
  }
  if (!response.body || !response.headers.get('content-type')?.startsWith('text/event-stream')) {
    return response;
  }
  const lead = new TextEncoder().encode(
    refusals.map((message) => `event: message\ndata: ${JSON.stringify(message)}\n\n`).join(''),
  );
  const reader = response.body.getReader();
  let first = true;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (first) {
        first = false;
        controller.enqueue(lead);
        return;
      }
      const { done, value } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
  return new Response(body, { status: response.status, headers: response.headers });
}
