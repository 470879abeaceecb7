import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { trackBody } from './mcp-body.ts';
import type { SessionEntry } from './mcp-sessions.ts';

/** One MCP session over Streamable HTTP. */
export interface HttpSession extends SessionEntry {
  readonly transport: WebStandardStreamableHTTPServerTransport;
  readonly server: Server;
  /** The open notification stream: since when, and how to end it. */
  stream: { readonly since: number; readonly stop: () => void } | undefined;
  /** Stops waiting for the expiry of the key that opened the session (set once it is open). */
  stopExpiry: () => void;
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

  /** Runs the request for `session`, counting it and then its response body until the body ends. */
  async serve(session: HttpSession, request: Request, run: () => Promise<Response>): Promise<Response> {
    session.open++;
    this.#inFlight++;
    session.lastActive = this.now();
    let response: Response;
    try {
      response = await run();
    } catch (error) {
      this.#release(session);
      throw error;
    }
    if (!response.body) {
      this.#release(session);
      return response;
    }
    const isStream = request.method === 'GET' && response.status === 200;
    let stream: HttpSession['stream'];
    const tracked = trackBody(response, {
      signal: request.signal,
      closeConnection: isStream,
      onEnd: () => {
        if (session.stream === stream) session.stream = undefined;
        this.#release(session);
      },
    });
    if (isStream && !tracked.stopped) {
      stream = { since: this.now(), stop: tracked.stop };
      session.stream = stream;
    }
    return tracked.response;
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
