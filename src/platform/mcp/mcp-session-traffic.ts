import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { trackBody } from './mcp-body.ts';
import type { Exchange, SessionExchanges } from './mcp-exchanges.ts';
import type { SessionEntry } from './mcp-sessions.ts';

/** One MCP session over Streamable HTTP. */
export interface HttpSession extends SessionEntry {
  readonly transport: WebStandardStreamableHTTPServerTransport;
  readonly server: Server;
  /** The open notification stream: since when, and how to end it. */
  stream: { readonly since: number; readonly stop: () => void } | undefined;
  /** Stops waiting for the expiry of the key that opened the session (set once it is open). */
  stopExpiry: () => void;
  /** The requests in flight, by id, and the POSTs they came in. */
  readonly exchanges: SessionExchanges;
  /** The POST responses still open, each with the requests it answers. */
  readonly answering: Set<{ readonly exchange: Exchange; readonly stop: () => void }>;
}

/**
 * What keeps sessions busy: a request until it is answered, and its response body until the body
 * ends (a POST's SSE answer, the GET notification stream). Counted per session, so an idle session
 * is one with nothing open, and over all sessions, which is what a stop drains.
 */
export class SessionTraffic {
  #inFlight = 0;
  /** Wakes a drain when the count reaches 0. */
  #drained: (() => void) | undefined;

  constructor(private readonly now: () => number) {}

  /**
   * Runs the request for `session`, counting it and then its response body until the body ends.
   * `exchange` holds the requests a POST carried: they are done with when its response ends.
   */
  async serve(
    session: HttpSession,
    request: Request,
    run: () => Promise<Response>,
    exchange?: Exchange,
  ): Promise<Response> {
    session.open++;
    this.#inFlight++;
    session.lastActive = this.now();
    let response: Response;
    try {
      response = await run();
    } catch (error) {
      exchange?.close();
      this.#release(session);
      throw error;
    }
    if (!response.body) {
      exchange?.close();
      this.#release(session);
      return response;
    }
    const isStream = request.method === 'GET' && response.status === 200;
    let stream: HttpSession['stream'];
    let answering: { exchange: Exchange; stop: () => void } | undefined;
    const tracked = trackBody(response, {
      signal: request.signal,
      closeConnection: isStream,
      onEnd: () => {
        if (session.stream === stream) session.stream = undefined;
        if (answering) session.answering.delete(answering);
        exchange?.close();
        this.#release(session);
      },
    });
    if (isStream && !tracked.stopped) {
      stream = { since: this.now(), stop: tracked.stop };
      session.stream = stream;
    } else if (exchange && !tracked.stopped) {
      answering = { exchange, stop: tracked.stop };
      session.answering.add(answering);
    }
    return tracked.response;
  }

  /**
   * Closes the POST responses of `session` that made no progress (no answer, no notification) for
   * `stallMs`: a request that is never answered, or a client that stopped reading, must not keep
   * the session busy for ever. The session counts as idle from the last progress on.
   */
  closeStalled(session: HttpSession, stallMs: number): number {
    const at = this.now();
    let closed = 0;
    for (const answering of session.answering) {
      const { progressAt } = answering.exchange;
      if (at - progressAt < stallMs) continue;
      const before = session.lastActive;
      answering.stop();
      session.lastActive = Math.max(before, progressAt);
      closed++;
    }
    return closed;
  }

  /** Resolves when nothing is open any more, or after `ms` (at once when nothing is, or `ms` is 0). */
  async drain(ms: number): Promise<void> {
    if (this.#inFlight === 0 || ms <= 0) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => this.#drained?.(), ms);
      this.#drained = () => {
        clearTimeout(timer);
        this.#drained = undefined;
        resolve();
      };
    });
  }

  #release(session: HttpSession): void {
    session.open--;
    session.lastActive = this.now();
    if (--this.#inFlight === 0) this.#drained?.();
  }
}
