import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import { onExpiry } from '../access/expiry.ts';

/** Close code for a caller whose key is no longer valid (revoked or expired). */
export const CLOSE_UNAUTHENTICATED = 4401;

/**
 * The WebSocket connections of each client (a key, or an address): how many are open or still
 * in their handshake, against the allowance per client, and the open sockets, so that they end
 * when the client's key is revoked or expires.
 */
export class ClientConnections {
  /** Open connections (and upgrades under way) per client. */
  readonly #counts = new Map<string, number>();
  /** Open sockets per client. */
  readonly #sockets = new Map<string, Set<WebSocket>>();

  constructor(private readonly maxPerClient: number) {}

  /**
   * Counts one more connection of `client`, from now until its TCP socket closes (a failed
   * handshake releases it too); false, counting nothing, when the client is at its allowance.
   */
  reserve(client: string, socket: Duplex): boolean {
    const open = this.#counts.get(client) ?? 0;
    if (open >= this.maxPerClient) return false;
    this.#counts.set(client, open + 1);
    socket.once('close', () => {
      const left = (this.#counts.get(client) ?? 1) - 1;
      if (left > 0) this.#counts.set(client, left);
      else this.#counts.delete(client);
    });
    return true;
  }

  /** Remembers the socket under its client until it closes, and ends it when `expiresAt` comes. */
  track(client: string, ws: WebSocket, expiresAt: Date | null | undefined): void {
    let set = this.#sockets.get(client);
    if (!set) {
      set = new Set();
      this.#sockets.set(client, set);
    }
    set.add(ws);
    const cancelExpiry = onExpiry(expiresAt, () =>
      ws.close(CLOSE_UNAUTHENTICATED, 'the API key has expired'),
    );
    ws.once('close', () => {
      cancelExpiry();
      set.delete(ws);
      if (set.size === 0) this.#sockets.delete(client);
    });
  }

  /** Ends every open connection of one client with 4401; returns how many. */
  closeClient(client: string, reason: string): number {
    const sockets = [...(this.#sockets.get(client) ?? [])];
    for (const ws of sockets) ws.close(CLOSE_UNAUTHENTICATED, reason);
    return sockets.length;
  }
}
