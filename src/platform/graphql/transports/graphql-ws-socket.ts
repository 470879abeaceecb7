import type { IncomingMessage } from 'node:http';
import type { ExecutionArgs } from 'graphql';
import {
  CloseCode,
  type ConnectionInitMessage,
  handleProtocols,
  type JSONMessageReplacer,
  makeServer,
  type Server,
  type ServerOptions,
} from 'graphql-ws';
import type { WebSocket, WebSocketServer } from 'ws';
import { sendText, wholeFrames } from '../../ws/whole-frames.ts';
import { setDirectSink } from '../direct-delivery.ts';

/**
 * graphql-ws's protocol server (`makeServer`) on `ws` sockets, in place of the library's own
 * `useServer` glue, for what the glue cannot do:
 * - A result's JSON is written once however many subscribers receive that same result object
 *   (shared subscription results, see shared-subscriptions.ts): the message replacer stands a
 *   token in for the payload and `send` splices the payload's cached JSON in. Only the envelope
 *   (`{"id":..,"type":"next","payload":..}`) is built per subscriber.
 * - `send` does not wait for the write to flush: a subscriber is held back by its socket's
 *   buffered bytes (bounded by the connection limits), not by one promise per message.
 * Keep-alive pings and closing on errors are as the library's glue does them.
 */

/** Stands in for a `next` payload while the message is stringified (a string no JSON value here is). */
const TOKEN = '\u0000vigil-payload';
const TOKEN_JSON = JSON.stringify(TOKEN);
const payloadJson = new WeakMap<object, string>();
/** The payload JSON of the message being stringified (stringify and send run back to back). */
let pendingPayload: string | undefined;

export const payloadReplacer: JSONMessageReplacer = function (this: unknown, key, value) {
  if (key !== 'payload' || value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  // Only a `next` message's payload is an ExecutionResult (`data` and/or `errors`).
  if (!('data' in value) && !('errors' in value)) return value;
  pendingPayload = payloadText(value);
  return TOKEN;
};

/** The JSON of a `next` payload, written once per payload object. */
function payloadText(payload: object): string {
  let json = payloadJson.get(payload);
  if (json === undefined) {
    json = JSON.stringify(payload);
    payloadJson.set(payload, json);
  }
  return json;
}

/** The UTF-8 bytes of a `next` payload's JSON, encoded once per payload object. */
const payloadBytes = new WeakMap<object, Buffer>();

function payloadBuffer(payload: object): Buffer {
  let bytes = payloadBytes.get(payload);
  if (bytes === undefined) {
    bytes = Buffer.from(payloadText(payload));
    payloadBytes.set(payload, bytes);
  }
  return bytes;
}

/**
 * Sends `next` messages of one operation straight to its socket (direct delivery of shared results,
 * see direct-delivery.ts): the same bytes graphql-ws would send for the same result. The payload is
 * encoded once for every subscriber; each message is its envelope's bytes and the payload's, copied
 * into one buffer (no string is built, measured or encoded per subscriber). Where the socket takes
 * whole frames (whole-frames.ts), that buffer is the whole frame, written at once.
 */
export function nextSender(socket: WebSocket, id: string): (payload: object) => void {
  const head = Buffer.from(`{"id":${JSON.stringify(id)},"type":"next","payload":`);
  const frames = wholeFrames(socket);
  return (payload) => {
    if (socket.readyState !== socket.OPEN) return;
    const body = payloadBuffer(payload);
    const size = head.length + body.length + 1;
    if (frames) {
      const frame = frames.frame(size);
      if (frame === undefined) return;
      fillNext(frame, head, body);
      frames.write(frame);
      return;
    }
    // As FrameWriter does: a message joining a backlog gets memory of its own, not a slice of the
    // shared buffer pool, so a slow reader's queue holds its messages and not whole pools.
    const message = socket.bufferedAmount === 0 ? Buffer.allocUnsafe(size) : Buffer.allocUnsafeSlow(size);
    fillNext(message, head, body);
    sendText(socket, message);
  };
}

/** Writes the envelope's head, the payload and the closing brace at the end of `message`. */
function fillNext(message: Buffer, head: Buffer, body: Buffer): void {
  const at = message.length - body.length - head.length - 1;
  message.set(head, at);
  message.set(body, at + head.length);
  message[message.length - 1] = 0x7d; // the envelope's closing brace
}

function spliced(data: string): string {
  const payload = pendingPayload;
  pendingPayload = undefined;
  if (payload === undefined) return data;
  const at = data.lastIndexOf(TOKEN_JSON);
  return at < 0 ? data : data.slice(0, at) + payload + data.slice(at + TOKEN_JSON.length);
}

export interface SocketExtra {
  readonly socket: WebSocket;
  readonly request: IncomingMessage;
}

/**
 * Serves graphql-ws's protocol with `options` on every connection of `wss`, through the glue here
 * rather than the library's `useServer`: `next` payloads spliced from their cached JSON, and a
 * direct sink registered for every operation `onSubscribe` prepares, so shared results without
 * errors skip the iterator (direct-delivery.ts).
 */
export function serveVigilGraphqlWs<P extends ConnectionInitMessage['payload']>(
  options: ServerOptions<P, SocketExtra>,
  wss: WebSocketServer,
  keepAliveMs?: number,
): { dispose(): Promise<void> } {
  const prepare = options.onSubscribe;
  return serveProtocol(
    makeServer<P, SocketExtra>({
      ...options,
      // A result many subscribers share is written to JSON once.
      jsonMessageReplacer: payloadReplacer,
      onSubscribe: async (ctx, id, payload) => {
        const prepared = await prepare?.(ctx, id, payload);
        if (isExecutionArgs(prepared)) registerSink(ctx, id, prepared.contextValue as object);
        return prepared;
      },
    }),
    wss,
    keepAliveMs,
  );
}

function isExecutionArgs(value: unknown): value is ExecutionArgs {
  return typeof value === 'object' && value !== null && 'schema' in value && 'document' in value;
}

/**
 * Shared results without errors may skip the iterator (direct-delivery.ts): they go out as
 * graphql-ws would send them (such a result has no errors for `onNext` to change), while the
 * operation is still this connection's.
 */
function registerSink(
  ctx: { readonly extra: SocketExtra; readonly subscriptions: object },
  id: string,
  context: object,
): void {
  const socket = ctx.extra.socket;
  const send = nextSender(socket, id);
  setDirectSink(context, {
    accepts: () => socket.readyState === socket.OPEN && id in ctx.subscriptions,
    deliver: send,
    // The results queued before delivery began (a price subscription's snapshots) leave in
    // one write: a system call and a TCP segment for them all, not one per message.
    batch: (deliverAll) => {
      const connection = ctx.extra.request.socket;
      connection.cork();
      try {
        deliverAll();
      } finally {
        connection.uncork();
      }
    },
  });
}

/** Serves `server` on every connection of `wss`; returns its disposal. */
export function serveProtocol(
  server: Server<SocketExtra>,
  wss: WebSocketServer,
  keepAliveMs = 12_000,
): { dispose(): Promise<void> } {
  wss.options.handleProtocols = handleProtocols;
  wss.on('connection', (socket, request) => {
    socket.once('error', () => socket.close(CloseCode.InternalServerError, 'Internal server error'));
    let pongWait: NodeJS.Timeout | undefined;
    const ping = setInterval(() => {
      if (socket.readyState !== socket.OPEN) return;
      pongWait = setTimeout(() => socket.terminate(), keepAliveMs);
      socket.once('pong', () => clearTimeout(pongWait));
      socket.ping();
    }, keepAliveMs);
    ping.unref();
    const closed = server.opened(
      {
        protocol: socket.protocol,
        send: (data) => {
          const text = spliced(data);
          if (socket.readyState === socket.OPEN) socket.send(text);
        },
        close: (code, reason) => socket.close(code, reason),
        onMessage: (handle) =>
          socket.on('message', async (raw) => {
            try {
              await handle(String(raw));
            } catch {
              socket.close(CloseCode.InternalServerError, 'Internal server error');
            }
          }),
      },
      { socket, request },
    );
    socket.once('close', (code, reason) => {
      clearInterval(ping);
      clearTimeout(pongWait);
      void closed(code, String(reason));
    });
  });
  return {
    async dispose() {
      for (const client of wss.clients) client.close(1001, 'Going away');
      wss.removeAllListeners();
      await new Promise<void>((resolve, reject) => wss.close((error) => (error ? reject(error) : resolve())));
    },
  };
}
