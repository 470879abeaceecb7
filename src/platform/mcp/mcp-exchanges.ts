import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type MessageExtraInfo,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';

/** JSON-RPC server-error code of a request a batch's byte bound left unrun (data.code says so). */
export const BATCH_TOO_LARGE = -32000;

/** A JSON-RPC id as a map key: `1` and `"1"` are different ids. */
export function idKey(id: RequestId): string {
  return typeof id === 'number' ? `n:${id}` : `s:${id}`;
}

type Deliver = (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;

interface Queued {
  readonly key: string;
  readonly message: JSONRPCRequest;
  readonly extra: MessageExtraInfo | undefined;
}

/**
 * The requests one POST carried (a batch, or one request), as one session's server handles them:
 * one after the other, in order, so that once their answers reach `maxBytes` the requests left are
 * answered with an error without being run (a tool with an effect never runs unanswered), and the
 * event loop serves others between two of them. The answer that crosses the bound is sent: the
 * bound is `maxBytes` plus one answer.
 */
export class Exchange {
  readonly #queue: Queued[] = [];
  #running: string | undefined;
  #bytes = 0;
  #closed = false;
  /** When the POST was received or one of its requests was last answered (or made progress). */
  progressAt: number;

  constructor(
    private readonly ledger: SessionExchanges,
    readonly keys: readonly string[],
  ) {
    this.progressAt = ledger.now();
  }

  enqueue(item: Queued): void {
    this.#queue.push(item);
    if (this.#running === undefined) this.#runNext();
  }

  /** An answer (`bytes` long, 0 for a notification) to one of its requests went out. */
  sent(key: string | undefined, bytes: number): void {
    this.progressAt = this.ledger.now();
    this.#bytes += bytes;
    if (key !== undefined && key === this.#running) {
      this.#running = undefined;
      // Later, so that other requests (another client's, /healthz) are served in between.
      setImmediate(() => this.#runNext());
    }
  }

  /** The client cancelled a request: a queued one is dropped, the running one lets the next go. */
  cancelled(key: string): void {
    const at = this.#queue.findIndex((item) => item.key === key);
    if (at >= 0) this.#queue.splice(at, 1);
    else if (key === this.#running) this.sent(key, 0);
  }

  /** The POST's response ended: nothing more runs, and its ids may be used again. */
  close(): void {
    this.#closed = true;
    this.#queue.length = 0;
    this.ledger.forget(this);
  }

  #runNext(): void {
    const item = this.#closed ? undefined : this.#queue.shift();
    if (!item) return;
    this.#running = item.key;
    if (this.#bytes < this.ledger.maxBytes) {
      this.ledger.run(item.message, item.extra);
      return;
    }
    const { maxBytes } = this.ledger;
    this.ledger.answer({
      jsonrpc: '2.0',
      id: item.message.id,
      error: {
        code: BATCH_TOO_LARGE,
        message:
          `not run: the answers to this batch reached ${maxBytes} bytes, the most one POST may get; ` +
          'send this request again, alone or in a smaller batch',
        data: { code: 'BATCH_TOO_LARGE', maxBytes },
      },
    });
  }
}

/**
 * The requests in flight on one session, by id, and the POST (Exchange) each came in. A JSON-RPC id
 * names one request at a time: the transport routes an answer to the POST that sent its id, so a
 * second request with the same id while the first runs would take the first one's answer and leave
 * it unanswered for ever. `inFlight` lets such a request be refused at once instead. An id stays in
 * use until the response of its POST has ended (the transport keeps it until then as well).
 */
export class SessionExchanges {
  readonly #byKey = new Map<string, Exchange>();
  #deliver: Deliver = () => {};
  #send: Transport['send'] = async () => {};

  constructor(
    readonly maxBytes: number,
    readonly now: () => number,
  ) {}

  inFlight(id: RequestId): boolean {
    return this.#byKey.has(idKey(id));
  }

  /** The exchange of a POST whose requests have these ids (none of them in flight). */
  open(ids: readonly RequestId[]): Exchange {
    const exchange = new Exchange(this, ids.map(idKey));
    for (const key of exchange.keys) this.#byKey.set(key, exchange);
    return exchange;
  }

  forget(exchange: Exchange): void {
    for (const key of exchange.keys) if (this.#byKey.get(key) === exchange) this.#byKey.delete(key);
  }

  /**
   * Puts the ledger between the transport and the server connected to it: requests of an exchange
   * reach the server through its queue, and every message going out is counted.
   */
  attach(transport: Transport): void {
    const deliver = transport.onmessage;
    const send = transport.send.bind(transport);
    if (deliver) this.#deliver = deliver;
    this.#send = send;
    transport.onmessage = (message, extra) => this.#received(message, extra);
    transport.send = (message, options) => {
      this.#sending(message, options);
      return send(message, options);
    };
  }

  run(message: JSONRPCRequest, extra: MessageExtraInfo | undefined): void {
    this.#deliver(message, extra);
  }

  answer(message: JSONRPCMessage): void {
    this.#sending(message, undefined);
    this.#send(message).catch(() => {});
  }

  #received(message: JSONRPCMessage, extra: MessageExtraInfo | undefined): void {
    if (isJSONRPCRequest(message)) {
      const key = idKey(message.id);
      const exchange = this.#byKey.get(key);
      if (exchange) {
        exchange.enqueue({ key, message, extra });
        return;
      }
    } else if (isJSONRPCNotification(message) && message.method === 'notifications/cancelled') {
      const requestId = (message.params as { requestId?: RequestId } | undefined)?.requestId;
      if (requestId !== undefined) this.#byKey.get(idKey(requestId))?.cancelled(idKey(requestId));
    }
    this.#deliver(message, extra);
  }

  #sending(message: JSONRPCMessage, options: TransportSendOptions | undefined): void {
    const isAnswer = isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message);
    const id = isAnswer ? message.id : options?.relatedRequestId;
    if (id === undefined) return;
    const key = idKey(id);
    const exchange = this.#byKey.get(key);
    if (!exchange) return;
    if (!isAnswer) {
      exchange.sent(undefined, 0);
      return;
    }
    exchange.sent(key, Buffer.byteLength(JSON.stringify(message)));
  }
}
