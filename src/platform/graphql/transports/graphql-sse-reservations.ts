import { randomUUID } from 'node:crypto';

/** A stream graphql-sse's client reserved (PUT), to open (GET) and add operations to (POST). */
export interface Reservation {
  readonly owner: string;
  operations: number;
  connected: boolean;
  timer?: ReturnType<typeof setTimeout>;
}

export interface ReservationLimits {
  /** Reservations not yet connected one client may hold (WS_MAX_CONNECTIONS_PER_CLIENT). */
  readonly perClient: number;
  /** Operations one reserved stream may carry at once (GRAPHQL_WS_MAX_SUBSCRIPTIONS). */
  readonly operationsPerStream: number;
  /** A reservation no stream connects to in this long is abandoned. */
  readonly timeoutMs: number;
}

/**
 * The reserved streams of graphql-sse's single-connection mode, as Vigil bounds them: reservations
 * not yet open per client, operations per stream, and how long a reservation may wait for its
 * stream. graphql-sse keeps its own record of each stream; this one is what those bounds count.
 */
export class SseReservations {
  readonly #byToken = new Map<string, Reservation>();
  /** Requests whose operation holds a place on its reserved stream, given back once when it ends. */
  readonly #counted = new WeakSet<Request>();

  constructor(
    private readonly limits: ReservationLimits,
    /** Ends a reservation nobody connected to in time (in graphql-sse too). */
    private readonly abandon: (token: string) => void,
  ) {}

  /** Whether the client already holds as many reservations not yet open as it may. */
  atLimit(owner: string): boolean {
    const pending = [...this.#byToken.values()].filter((r) => r.owner === owner && !r.connected).length;
    return pending >= this.limits.perClient;
  }

  /** Reserves a stream for `owner`; the token names it from now on. */
  reserve(owner: string): string {
    // The token is a bearer of the stream: unguessable, and never one the client chose.
    const token = randomUUID();
    const reservation: Reservation = { owner, operations: 0, connected: false };
    reservation.timer = setTimeout(() => this.abandon(token), this.limits.timeoutMs);
    reservation.timer.unref?.();
    this.#byToken.set(token, reservation);
    return token;
  }

  get(token: string | undefined): Reservation | undefined {
    return token === undefined ? undefined : this.#byToken.get(token);
  }

  /** Takes a place on the stream for the request's operation; false when every place is taken. */
  admit(reservation: Reservation, request: Request): boolean {
    if (reservation.operations >= this.limits.operationsPerStream) return false;
    reservation.operations += 1;
    this.#counted.add(request);
    return true;
  }

  /** An operation of a reserved stream ended: its place is free again. */
  release(request: Request, token: string | undefined): void {
    if (!this.#counted.has(request)) return;
    this.#counted.delete(request);
    const reservation = this.get(token);
    if (reservation) reservation.operations = Math.max(0, reservation.operations - 1);
  }

  /**
   * The reservation's stream opened: it is no longer pending and no longer times out. Returns what
   * forgets it, for when the stream ends (graphql-sse forgets it then too).
   */
  connect(token: string, reservation: Reservation): () => void {
    reservation.connected = true;
    clearTimeout(reservation.timer);
    return () => this.#byToken.delete(token);
  }

  /** Forgets a reservation still waiting for its stream; false if it is gone or connected. */
  takeAbandoned(token: string): boolean {
    const reservation = this.#byToken.get(token);
    if (!reservation || reservation.connected) return false;
    this.#byToken.delete(token);
    return true;
  }
}
