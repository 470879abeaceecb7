import { EventEmitter } from 'node:events';
import type { Duplex } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { WebSocket } from 'ws';
import { CLOSE_UNAUTHENTICATED, ClientConnections } from './client-connections.ts';

const tcp = () => new EventEmitter() as unknown as Duplex;

/** A socket that records how it was closed and emits 'close' as `ws` does. */
function fakeSocket() {
  const socket = new EventEmitter() as EventEmitter & { closedWith?: [number, string] };
  const ws = Object.assign(socket, {
    close(code: number, reason: string) {
      socket.closedWith = [code, reason];
      socket.emit('close');
    },
  });
  return ws as unknown as WebSocket & { closedWith?: [number, string] };
}

describe('ClientConnections', () => {
  it('counts each client against its allowance until its TCP sockets close', () => {
    const clients = new ClientConnections(2);
    const [a, b, c] = [tcp(), tcp(), tcp()];
    expect(clients.reserve('key:1', a)).toBe(true);
    expect(clients.reserve('key:1', b)).toBe(true);
    expect(clients.reserve('key:1', c)).toBe(false);
    // Another client has an allowance of its own.
    expect(clients.reserve('ip:10.0.0.1', tcp())).toBe(true);
    a.emit('close');
    expect(clients.reserve('key:1', c)).toBe(true);
    expect(clients.reserve('key:1', tcp())).toBe(false);
  });

  it("ends a client's open sockets with 4401, and only that client's", () => {
    const clients = new ClientConnections(10);
    const [mine, alsoMine, theirs] = [fakeSocket(), fakeSocket(), fakeSocket()];
    clients.track('key:1', mine, null);
    clients.track('key:1', alsoMine, null);
    clients.track('key:2', theirs, null);
    expect(clients.closeClient('key:1', 'the API key has been revoked')).toBe(2);
    expect(mine.closedWith).toEqual([CLOSE_UNAUTHENTICATED, 'the API key has been revoked']);
    expect(alsoMine.closedWith?.[0]).toBe(CLOSE_UNAUTHENTICATED);
    expect(theirs.closedWith).toBeUndefined();
    // Closed sockets are forgotten.
    expect(clients.closeClient('key:1', 'again')).toBe(0);
  });

  it('ends a socket when its key expires', async () => {
    const clients = new ClientConnections(10);
    const socket = fakeSocket();
    clients.track('key:1', socket, new Date(Date.now() + 30));
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(socket.closedWith).toEqual([CLOSE_UNAUTHENTICATED, 'the API key has expired']);
  });
});
