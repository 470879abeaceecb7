/**
 * Sessions one client (one `clientId`: an API key, else an address) may hold at once, unless
 * MCP_MAX_SESSIONS is lower. A client that opens more replaces its own least recently active idle
 * session; it can never push out another client's.
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
 * At a bound, only an idle session (no request, no stream) of the same client may be replaced;
 * otherwise the new session is refused. Strangers flooding `initialize` thus fill the table at most
 * up to what is free, and never log anyone out.
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
   * Reserves a place for a new session of `clientId`, taking it from the client's own least
   * recently active idle session when a bound is reached (that session is removed from the table;
   * the caller closes it). Every successful reservation ends with `settle(clientId)`.
   */
  reserve(clientId: string): Admission<S> {
    const own = (this.#byClient.get(clientId)?.size ?? 0) + (this.#pending.get(clientId) ?? 0);
    const total = this.#byId.size + this.#pendingTotal;
    let evicted: S | undefined;
    if (own >= this.maxPerClient || total >= this.maxSessions) {
      for (const session of this.#byClient.get(clientId) ?? []) {
        if (session.open === 0 && (!evicted || session.lastActive < evicted.lastActive)) evicted = session;
      }
      if (!evicted) {
        return {
          ok: false,
          message:
            own >= this.maxPerClient
              ? `too many MCP sessions for this client (at most ${this.maxPerClient}, all busy); ` +
                'end one (DELETE /mcp) or try again later'
              : `too many MCP sessions (at most ${this.maxSessions}); try again later`,
        };
      }
      this.delete(evicted);
    }
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
}
