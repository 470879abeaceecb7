import { Client } from 'undici';
import WebSocket from 'ws';

/** The soak benchmark's side clients: the /healthz probe and the /ws/stream cycles. */
export const PROBE_MS = 50;
export const CLIENTS = 64;
const WS_CYCLES_PER_CONNECTION = 10;
const WS_WAIT_MS = 5_000;
/** Two messages a cycle: under the stream's 10 client messages per second. */
const WS_CYCLE_PAUSE_MS = 250;

/**
 * Load comes from CLIENTS addresses, as one trusted proxy hop reports them in X-Forwarded-For. The
 * index is hashed so that every kind of request (picked by the index too) comes from every client.
 */
export function clientAddress(i: number): string {
  let h = Math.imul(i ^ (i >>> 16), 0x45d9f3b);
  h = Math.imul(h ^ (h >>> 16), 0x45d9f3b);
  return `10.77.0.${(((h ^ (h >>> 16)) >>> 0) % CLIENTS) + 1}`;
}

/** GET /healthz every PROBE_MS on a connection of its own; probes overlapping a forced GC are dropped. */
export class HealthProbe {
  readonly #client: Client;
  #latencies: number[] = [];
  #running = false;
  #paused = 0;
  #gcEpoch = 0;

  constructor(base: string) {
    this.#client = new Client(base, { pipelining: 1 });
  }

  async measure(ms: number): Promise<void> {
    const done = this.start();
    await pause(ms);
    this.stop();
    await done;
  }

  async start(): Promise<void> {
    this.#running = true;
    while (this.#running) {
      const tick = performance.now();
      if (this.#paused === 0) {
        const epoch = this.#gcEpoch;
        const t0 = performance.now();
        const res = await this.#client.request({ method: 'GET', path: '/healthz' });
        await res.body.text();
        if (epoch === this.#gcEpoch && this.#paused === 0) this.#latencies.push(performance.now() - t0);
      }
      const wait = PROBE_MS - (performance.now() - tick);
      if (wait > 0) await pause(wait);
    }
  }

  stop(): void {
    this.#running = false;
  }
  pause(): void {
    this.#paused++;
    this.#gcEpoch++;
  }
  resume(): void {
    this.#paused--;
  }
  take(): number[] {
    const taken = this.#latencies;
    this.#latencies = [];
    return taken;
  }
  close(): Promise<void> {
    return this.#client.close();
  }
}

/** Subscribe/unsubscribe cycles on /ws/stream, reconnecting every few cycles, until stopped. */
export class StreamCycles {
  #cycles = 0;
  #connections = 0;
  #failures: string[] = [];
  #running = true;
  readonly #done: Promise<void>;

  constructor(base: string) {
    this.#done = this.#loop(`${base}/ws/stream`);
  }

  async #loop(target: string): Promise<void> {
    while (this.#running) {
      const socket = new WebSocket(target, {
        headers: { 'x-forwarded-for': clientAddress(this.#connections) },
      });
      this.#connections++;
      try {
        await waitFor(socket, 'open');
        for (let c = 0; c < WS_CYCLES_PER_CONNECTION && this.#running; c++) {
          const symbols = [['AAPL', 'MSFT'], ['BTC/USDT'], ['SPY', 'QQQ', 'NVDA']][c % 3]!;
          socket.send(
            JSON.stringify({ type: 'subscribe', stream_type: 'price', symbols, interval_ms: 1000 }),
          );
          await nextMessage(socket, 'subscription_ack');
          socket.send(JSON.stringify({ type: 'unsubscribe', stream_type: 'price', symbols }));
          await nextMessage(socket, 'unsubscribe_ack');
          this.#cycles++;
          await pause(WS_CYCLE_PAUSE_MS);
        }
      } catch (error) {
        this.#failures.push((error as Error).message);
        await pause(WS_CYCLE_PAUSE_MS);
      } finally {
        socket.close();
      }
    }
  }

  async stop(): Promise<void> {
    this.#running = false;
    await this.#done;
  }

  report(): string {
    const failed = this.#failures.length
      ? `, ${this.#failures.length} failed (first: ${this.#failures[0]})`
      : '';
    return `${this.#cycles} subscribe/unsubscribe cycles over ${this.#connections} connections${failed}`;
  }
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function waitFor(socket: WebSocket, event: 'open'): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${event} within ${WS_WAIT_MS} ms`)), WS_WAIT_MS);
    socket.once(event, () => {
      clearTimeout(timer);
      resolve();
    });
    socket.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

function nextMessage(socket: WebSocket, type: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onMessage = (data: WebSocket.RawData) => {
      const message = JSON.parse(String(data)) as { type?: string; message?: string };
      if (message.type === type) return finish(resolve);
      if (message.type === 'error') finish(() => reject(new Error(String(message.message).slice(0, 80))));
    };
    const timer = setTimeout(
      () => finish(() => reject(new Error(`no ${type} within ${WS_WAIT_MS} ms`))),
      WS_WAIT_MS,
    );
    const onClose = (code: number) => finish(() => reject(new Error(`closed (${code}) before ${type}`)));
    const finish = (then: () => void) => {
      clearTimeout(timer);
      socket.off('message', onMessage);
      socket.off('close', onClose);
      then();
    };
    socket.on('message', onMessage);
    socket.once('close', onClose);
  });
}
