import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import { closeSlowReader } from './socket-limits.ts';

/**
 * Text messages written to a connection as whole WebSocket frames, header and message in one
 * buffer and one write. `ws` frames a message as two buffers (header, then data) joined by a cork,
 * which is a vectored write through the stream's buffering; for one event sent to thousands of
 * subscribers that costs more than the message itself.
 *
 * Writing frames beside `ws` is sound because every frame either side writes is whole: the router's
 * servers negotiate no extension (`ws` leaves permessage-deflate off unless asked, and a socket
 * with any extension gets no writer), and nothing here sends fragments or blobs, which `ws` would
 * queue. The frames share the connection's stream, so they keep their order with `ws`'s own
 * (pings, close), count in `bufferedAmount`, and stop once the socket is no longer open.
 */
export class FrameWriter {
  constructor(
    private readonly socket: WebSocket,
    private readonly connection: Duplex,
    private readonly maxBufferedBytes: number,
  ) {}

  /**
   * A frame for a text message of `size` UTF-8 bytes, its header written: the caller fills the
   * last `size` bytes and passes it to `write`. Undefined when nothing may be sent: the socket is
   * not open, or its unsent bytes are over the bound (WS_MAX_BUFFERED_BYTES), in which case it is
   * closed as a slow reader, as every other send on it would do.
   */
  frame(size: number): Buffer | undefined {
    const socket = this.socket;
    if (socket.readyState !== socket.OPEN || !this.connection.writable) return undefined;
    const buffered = socket.bufferedAmount;
    if (buffered > this.maxBufferedBytes) {
      closeSlowReader(socket);
      return undefined;
    }
    const header = size < 126 ? 2 : size < 65_536 ? 4 : 10;
    // A frame sent while nothing waits before it may be cut from Node's shared 8 KB buffer pool;
    // one that joins a backlog gets memory of its own, so a slow reader's queue holds its messages
    // and not whole pools (the bound on unsent bytes stays a bound on memory).
    const frame = buffered === 0 ? Buffer.allocUnsafe(header + size) : Buffer.allocUnsafeSlow(header + size);
    writeTextHeader(frame, size);
    return frame;
  }

  write(frame: Buffer): void {
    this.connection.write(frame);
  }
}

/** Writes the header of an unmasked, final text frame of `size` bytes at the start of `frame`. */
export function writeTextHeader(frame: Buffer, size: number): void {
  frame[0] = 0x81; // FIN, opcode 1 (text)
  if (size < 126) {
    frame[1] = size;
  } else if (size < 65_536) {
    frame[1] = 126;
    frame.writeUInt16BE(size, 2);
  } else {
    frame[1] = 127;
    frame.writeUInt32BE(Math.floor(size / 2 ** 32), 2);
    frame.writeUInt32BE(size >>> 0, 6);
  }
}

const writers = new WeakMap<WebSocket, FrameWriter>();

/**
 * Lets whole frames be written to `socket` (see FrameWriter), over `connection`, the stream `ws`
 * writes to, and bounded like its other sends. A socket with a negotiated extension is left out.
 */
export function allowWholeFrames(socket: WebSocket, connection: Duplex, maxBufferedBytes: number): void {
  if (socket.extensions !== '') return;
  writers.set(socket, new FrameWriter(socket, connection, maxBufferedBytes));
}

/** The frame writer of `socket`, if whole frames may be written to it. */
export function wholeFrames(socket: WebSocket): FrameWriter | undefined {
  return writers.get(socket);
}

/** `ws` options for a text message given as bytes (`ws` sends a Buffer as binary unless told). */
const TEXT = Object.freeze({ binary: false });

/**
 * Sends `data` (a string, or its UTF-8 bytes) as a text message: as one whole frame where the
 * socket takes them, else through `ws`. Bounded either way; nothing is sent once it is not open.
 */
export function sendText(socket: WebSocket, data: string | Buffer): void {
  const frames = writers.get(socket);
  if (frames === undefined) {
    if (socket.readyState === socket.OPEN) socket.send(data, TEXT);
    return;
  }
  const text = typeof data === 'string';
  const size = text ? Buffer.byteLength(data) : data.length;
  const frame = frames.frame(size);
  if (frame === undefined) return;
  if (text) frame.write(data, frame.length - size, size, 'utf8');
  else frame.set(data, frame.length - size);
  frames.write(frame);
}
