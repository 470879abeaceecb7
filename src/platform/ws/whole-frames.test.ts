import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { CLOSE_TRY_AGAIN_LATER } from './socket-limits.ts';
import { allowWholeFrames, sendText, wholeFrames } from './whole-frames.ts';

/** A `ws` server whose sockets take whole frames (bounded at `maxBufferedBytes`), and a client of it. */
async function pair(maxBufferedBytes = 1 << 20, options: { deflate?: boolean } = {}) {
  const server = new WebSocketServer({
    port: 0,
    host: '127.0.0.1',
    perMessageDeflate: options.deflate ?? false,
  });
  await new Promise((resolve) => server.once('listening', resolve));
  const accepted = new Promise<WebSocket>((resolve) =>
    server.once('connection', (socket, request) => {
      allowWholeFrames(socket, request.socket, maxBufferedBytes);
      resolve(socket);
    }),
  );
  const client = new WebSocket(`ws://127.0.0.1:${(server.address() as AddressInfo).port}`, {
    perMessageDeflate: options.deflate ?? false,
  });
  const received: Array<{ text: string; binary: boolean }> = [];
  client.on('message', (data, binary) => received.push({ text: String(data), binary }));
  await new Promise((resolve) => client.once('open', resolve));
  const socket = await accepted;
  opened.push(() => {
    client.terminate();
    server.close();
  });
  return { socket, client, received };
}

const opened: Array<() => void> = [];
afterEach(() => {
  for (const close of opened.splice(0)) close();
});

async function until(done: () => boolean, ms = 5_000) {
  const end = Date.now() + ms;
  while (!done()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('whole frames', () => {
  it('arrive as the text messages they hold, at every length encoding, in order with ws sends', async () => {
    const { socket, received } = await pair();
    expect(wholeFrames(socket)).toBeDefined();
    // 125, 126, 65,535 and 65,536 bytes are where the frame's length field changes size.
    const texts = [0, 1, 125, 126, 127, 65_535, 65_536, 200_000].map((n) => 'x'.repeat(n));
    texts.push('prix en € — "cité" 📈'.repeat(20));
    const expected: string[] = [];
    for (const [i, text] of texts.entries()) {
      if (i % 2 === 0) sendText(socket, text);
      else sendText(socket, Buffer.from(text));
      socket.send(`between ${i}`);
      expected.push(text, `between ${i}`);
    }
    await until(() => received.length === expected.length);
    expect(received.map((m) => m.text)).toEqual(expected);
    expect(received.every((m) => !m.binary)).toBe(true);
  });

  it('close a reader that holds more unsent bytes than the bound, as every send on it would', async () => {
    const { socket, client } = await pair(64 * 1024);
    const closed = new Promise<number>((resolve) => client.once('close', resolve));
    // The client stops reading: the server's unsent bytes grow until the bound is passed.
    (client as unknown as { _socket: { pause(): void } })._socket.pause();
    // (The kernel's buffers take the first megabytes: the loop runs until they are full.)
    const chunk = 'y'.repeat(64 * 1024);
    let mostBuffered = 0;
    for (let i = 0; i < 4_000 && socket.readyState === socket.OPEN; i++) {
      sendText(socket, chunk);
      mostBuffered = Math.max(mostBuffered, socket.bufferedAmount);
      if (i % 16 === 15) await new Promise((resolve) => setImmediate(resolve));
    }
    expect(socket.readyState).not.toBe(socket.OPEN);
    // Nothing was queued once the bound was passed: the backlog stayed within one message of it.
    expect(mostBuffered).toBeGreaterThan(64 * 1024);
    expect(mostBuffered).toBeLessThanOrEqual(64 * 1024 + chunk.length + 4);
    (client as unknown as { _socket: { resume(): void } })._socket.resume();
    expect(await closed).toBe(CLOSE_TRY_AGAIN_LATER);
  });

  it('are not written once the socket is closing, nor to a socket with a negotiated extension', async () => {
    const plain = await pair();
    plain.socket.close(1000, 'bye');
    sendText(plain.socket, 'after close');
    await new Promise((resolve) => plain.client.once('close', resolve));
    expect(plain.received).toEqual([]);

    const deflated = await pair(1 << 20, { deflate: true });
    expect(deflated.socket.extensions).toContain('permessage-deflate');
    expect(wholeFrames(deflated.socket)).toBeUndefined();
    // Sent through `ws` (compressed) instead, still as text.
    sendText(deflated.socket, 'compressed');
    sendText(deflated.socket, Buffer.from('bytes too'));
    await until(() => deflated.received.length === 2);
    expect(deflated.received).toEqual([
      { text: 'compressed', binary: false },
      { text: 'bytes too', binary: false },
    ]);
  });
});
