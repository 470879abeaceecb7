/**
 * Sessions one client (one `clientId`: an API key, else an address) may hold at once, unless
 * MCP_MAX_SESSIONS is lower. A client that opens more replaces its own least recently active idle
 * session.
 */
export const MAX_SESSIONS_PER_CLIENT = 10;

/** What the table needs to know of a session. */
export interface SessionEntry {
  readonly id: string;
  /** The client that initialized the session; only it may use the session. */
  readonly clientId: string;
  lastActive: number;
  /** Requests being handled plus response streams still open. */
  open: number;
}

export type Admission<S> =
  | { readonly ok: true; readonly evicted: S | undefined }
  | { readonly ok: false; readonly message: string };

/**
 * Open sessions by id and by client, bounded in total (`maxSessions`) and per client
 * (`maxPerClient`). A place is reserved when an `initialize` arrives and kept until the session is
 * registered or its initialization fails, so concurrent initializations cannot overshoot either bound.
 *
 * Only an idle session (no request, no stream) is ever replaced. At the client's own bound, it is the
 * client's least recently active idle one. At the total bound, it is the least recently active idle
 * session of the client holding the most sessions: a few clients that filled the table (a ping now
 * and then keeps a session alive) cannot lock everyone else out, and whoever holds the most gives
 * way first. A newcomer is refused only when no session is idle.
 */
export class SessionTable<S extends SessionEntry> {
  readonly #byId = new Map<string, S>();
  readonly #byClient = new Map<string, Set<S>>();
  /** Initializations in progress, per client and in total. */
  readonly #pending = new Map<string, number>();
  #pendingTotal = 0;

  constructor(
    readonly maxSessions: number,
    readonly maxPerClient: number,
  ) {}

  get size(): number {
    return this.#byId.size;
  }

  values(): IterableIterator<S> {
    return this.#byId.values();
  }

  get(id: string): S | undefined {
    return this.#byId.get(id);
  }

  /**
   * Reserves a place for a new session of `clientId`, taking it from an idle session when a bound is
   * reached (that session is removed from the table; the caller closes it). Every successful
   * reservation ends with `settle(clientId)`.
   */
  reserve(clientId: string): Admission<S> {
    const own = (this.#byClient.get(clientId)?.size ?? 0) + (this.#pending.get(clientId) ?? 0);
    let evicted: S | undefined;
    if (own >= this.maxPerClient) {
      evicted = leastRecentIdle(this.#byClient.get(clientId) ?? []);
      if (!evicted) {
        return {
          ok: false,
          message:
            `too many MCP sessions for this client (at most ${this.maxPerClient}, all busy); ` +
            'end one (DELETE /mcp) or try again later',
        };
      }
    } else if (this.#byId.size + this.#pendingTotal >= this.maxSessions) {
      evicted = this.#idleOfBiggestHolder(clientId);
      if (!evicted) {
        return {
          ok: false,
          message: `too many MCP sessions (at most ${this.maxSessions}, all busy); try again later`,
        };
      }
    }
    if (evicted) this.delete(evicted);
    this.#pending.set(clientId, (this.#pending.get(clientId) ?? 0) + 1);
    this.#pendingTotal++;
    return { ok: true, evicted };
  }

  /** Ends a reservation (the session was registered with `add`, or was never created). */
  settle(clientId: string): void {
    const left = (this.#pending.get(clientId) ?? 0) - 1;
    if (left > 0) this.#pending.set(clientId, left);
    else this.#pending.delete(clientId);
    this.#pendingTotal--;
  }

  add(session: S): void {
    this.#byId.set(session.id, session);
    let own = this.#byClient.get(session.clientId);
    if (!own) {
      own = new Set();
      this.#byClient.set(session.clientId, own);
    }
    own.add(session);
  }

  /** Removes the session if it is (still) in the table; true when it was. */
  delete(session: S): boolean {
    if (this.#byId.get(session.id) !== session) return false;
    this.#byId.delete(session.id);
    const own = this.#byClient.get(session.clientId);
    own?.delete(session);
    if (own?.size === 0) this.#byClient.delete(session.clientId);
    return true;
  }

  /**
   * The least recently active idle session of the client with the most sessions (of those that
   * have an idle one). Between equals, the newcomer's own comes first (replacing one's own session
   * takes nothing from anyone), then the one idle longer. One pass over the table: it runs only
   * when the table is full.
   */
  #idleOfBiggestHolder(newcomer: string): S | undefined {
    let chosen: S | undefined;
    let rank = { holds: 0, own: false };
    for (const [clientId, sessions] of this.#byClient) {
      if (sessions.size < rank.holds) continue;
      const idle = leastRecentIdle(sessions);
      if (!idle) continue;
      const own = clientId === newcomer;
      const better =
        !chosen ||
        sessions.size > rank.holds ||
        (own && !rank.own) ||
        (own === rank.own && idle.lastActive < chosen.lastActive);
      if (better) {
        chosen = idle;
        rank = { holds: sessions.size, own };
      }
    }
    return chosen;
  }
}

/** The least recently active of these sessions with nothing open, if any. */
function leastRecentIdle<S extends SessionEntry>(sessions: Iterable<S>): S | undefined {
  let found: S | undefined;
  for (const session of sessions) {
    if (session.open === 0 && (!found || session.lastActive < found.lastActive)) found = session;
  }
  return found;
}
