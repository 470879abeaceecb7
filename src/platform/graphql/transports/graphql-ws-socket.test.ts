import { describe, expect, it } from 'vitest';
import type { WebSocket } from 'ws';
import { nextSender } from './graphql-ws-socket.ts';

/** A socket that records what is sent and how much it holds unsent. */
function recordingSocket(bufferedAmount = 0) {
  const sent: Array<{ data: Buffer; options: unknown }> = [];
  const socket = {
    OPEN: 1,
    readyState: 1,
    bufferedAmount,
    send(data: Buffer, options: unknown) {
      sent.push({ data, options });
    },
  };
  return { socket: socket as unknown as WebSocket & typeof socket, sent };
}

describe('nextSender', () => {
  const payload = { data: { prices: { symbol: 'EUR/USD', note: 'prix en € — "cité"', price: 1.0834 } } };

  it('sends as a text frame the bytes graphql-ws would send for the message', () => {
    for (const id of ['1', 'id-"2"\\', 'e9a1c6d0-3b7f-4c1e-9f1a-000000000000']) {
      const { socket, sent } = recordingSocket();
      nextSender(socket, id)(payload);
      expect(sent).toHaveLength(1);
      expect(sent[0]!.options).toEqual({ binary: false });
      expect(sent[0]!.data.toString('utf8')).toBe(JSON.stringify({ id, type: 'next', payload }));
    }
  });

  it('encodes a payload once for every subscriber of it', () => {
    const a = recordingSocket();
    const b = recordingSocket();
    const shared = { data: { x: 1 } };
    nextSender(a.socket, 'a')(shared);
    nextSender(b.socket, 'b')(shared);
    // Later changes to the object are not seen: its JSON was taken the first time.
    shared.data.x = 2;
    nextSender(a.socket, 'a')(shared);
    expect(a.sent.map((m) => m.data.toString())).toEqual([
      '{"id":"a","type":"next","payload":{"data":{"x":1}}}',
      '{"id":"a","type":"next","payload":{"data":{"x":1}}}',
    ]);
    expect(b.sent[0]!.data.toString()).toBe('{"id":"b","type":"next","payload":{"data":{"x":1}}}');
  });

  it('gives a message that joins a backlog memory of its own, not a slice of the shared pool', () => {
    const idle = recordingSocket(0);
    const behind = recordingSocket(64 * 1024);
    nextSender(idle.socket, '1')(payload);
    nextSender(behind.socket, '1')(payload);
    const [quick] = idle.sent.map((m) => m.data);
    const [queued] = behind.sent.map((m) => m.data);
    expect(queued!.toString()).toBe(quick!.toString());
    expect(queued!.buffer.byteLength).toBe(queued!.length);
    expect(quick!.buffer.byteLength).toBeGreaterThan(quick!.length);
  });

  it('sends nothing once the socket is no longer open', () => {
    const { socket, sent } = recordingSocket();
    socket.readyState = 3;
    nextSender(socket, '1')(payload);
    expect(sent).toEqual([]);
  });
});
