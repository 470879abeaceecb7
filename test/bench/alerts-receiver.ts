import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the alerts benchmark reads from a webhook body: which alert, which event. */
export interface Hit {
  readonly path: string;
  readonly alertId: string;
  readonly seq: number;
  /** performance.now() when the request body had fully arrived. */
  readonly at: number;
}

/**
 * A local webhook receiver: answers 200 to every request and hands each one, with its arrival
 * time, to `onHit`. Bodies are the webhook shape (`alert_id`, `event.data.seq`); direct baseline
 * requests send the same shape, so both are read the same way.
 */
export class Receiver {
  onHit: (hit: Hit) => void = () => {};
  #server: Server | undefined;
  base = '';

  async start(): Promise<void> {
    this.#server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (c: Buffer) => chunks.push(c));
      request.on('end', () => {
        const at = performance.now();
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end('{"ok":true}');
        const body = JSON.parse(Buffer.concat(chunks).toString()) as {
          alert_id?: string;
          event?: { data?: { seq?: number } };
        };
        this.onHit({
          path: request.url ?? '',
          alertId: String(body.alert_id),
          seq: Number(body.event?.data?.seq),
          at,
        });
      });
    });
    // Keep-alive sockets from the app's delivery client would otherwise hold close() open.
    this.#server.keepAliveTimeout = 5_000;
    await new Promise<void>((resolve) => this.#server!.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    const server = this.#server;
    if (!server) return Promise.resolve();
    server.closeAllConnections();
    return new Promise((resolve) => server.close(() => resolve()));
  }
}

/** A promise that resolves when `count` reaches `total`, or rejects after `ms` naming the count. */
export function counter(total: number, ms: number, what: string) {
  let count = 0;
  let done: () => void = () => {};
  let fail: (e: Error) => void = () => {};
  const all = new Promise<void>((resolve, reject) => {
    done = resolve;
    fail = reject;
  });
  const timer = setTimeout(() => fail(new Error(`${what}: ${count} of ${total} within ${ms / 1000} s`)), ms);
  if (total === 0) done();
  return {
    all: all.finally(() => clearTimeout(timer)),
    tick() {
      if (++count === total) done();
    },
    get count() {
      return count;
    },
  };
}

/** Calls `send(i)` for i in [0, total), one after the other, `spacingMs` apart. */
export async function pacedSends(
  total: number,
  spacingMs: number,
  send: (i: number) => Promise<unknown>,
): Promise<void> {
  for (let i = 0; i < total; i++) {
    await send(i);
    await new Promise((resolve) => setTimeout(resolve, spacingMs));
  }
}
