import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import WebSocket from 'ws';

/**
 * The scale benchmark's subscribers: graphql-ws clients of `prices` for one symbol each, in a
 * worker thread of the benchmark's process (its main thread runs the upstream and the proxy). Each
 * subscriber notes every tick it receives (price, seq, snapshot, arrival time, and which of its
 * connections it came on). A subscriber whose socket closes without being asked to (its instance
 * was killed) connects again to the same address, the proxy's, and subscribes again, as a client
 * library's retry would; its connections are counted.
 */
export interface SubscriberLog {
  readonly symbol: string;
  /** When its first connection had its snapshot (ms, shared clock); NaN if it never did. */
  readyAt: number;
  /** Flattened ticks: price, seq, arrival time, 1 for a snapshot, connection number (0 = first). */
  readonly ticks: number[];
  /** When each unasked close happened. */
  readonly closedAt: number[];
  /** When each later connection had its snapshot. */
  readonly reconnectedAt: number[];
  /** Connection attempts that failed (refused, closed or errored before the snapshot). */
  failures: number;
  /** Why they failed: the socket error, the close code and reason, or the protocol's error message. */
  readonly failedWith: Record<string, number>;
}

export const TICK_FIELDS = 5;

type Request =
  | { connect: { url: string; symbols: string[]; reconnect: boolean } }
  | { collect: true }
  | { close: true };

const QUERY = 'subscription ($s: [String!]!) { prices(symbols: $s, intervalMs: 100) { seq price snapshot } }';
const CONNECT_BATCH = 100;

export type Clients = ReturnType<typeof scaleClients>;

/** The worker, and a function that asks it something and waits for its answer. */
export function scaleClients() {
  const worker = new Worker(
    `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(import.meta.url)}); });`,
    { eval: true, workerData: { scaleClients: true } },
  );
  const answers: Array<(answer: unknown) => void> = [];
  worker.on('message', (answer) => answers.shift()?.(answer));
  const ask = <T>(request: Request) =>
    new Promise<T>((resolve) => {
      answers.push(resolve as (answer: unknown) => void);
      worker.postMessage(request);
    });
  return {
    /** Connects one subscriber per symbol given; answers the milliseconds it took. */
    connect: (url: string, symbols: string[], reconnect: boolean) =>
      ask<{ ms: number }>({ connect: { url, symbols, reconnect } }),
    /** Every subscriber's log so far (the logs are kept). */
    collect: () => ask<SubscriberLog[]>({ collect: true }),
    /** Closes every subscriber (and forgets them). */
    close: () => ask<{ closed: number }>({ close: true }),
    stop: () => worker.terminate(),
  };
}

function now(): number {
  return performance.timeOrigin + performance.now();
}

function serve(port: NonNullable<typeof parentPort>): void {
  let subscribers: Subscriber[] = [];
  port.on('message', async (request: Request) => {
    if ('collect' in request) return port.postMessage(subscribers.map((s) => s.log));
    if ('close' in request) {
      for (const s of subscribers) s.close();
      port.postMessage({ closed: subscribers.length });
      subscribers = [];
      return;
    }
    const { url, symbols, reconnect } = request.connect;
    const started = now();
    const fresh = symbols.map((symbol) => new Subscriber(url, symbol, reconnect));
    subscribers.push(...fresh);
    for (let i = 0; i < fresh.length; i += CONNECT_BATCH)
      await Promise.all(fresh.slice(i, i + CONNECT_BATCH).map((s) => s.start()));
    port.postMessage({ ms: now() - started });
  });
}

class Subscriber {
  readonly log: SubscriberLog;
  #socket: WebSocket | undefined;
  #closing = false;
  #connection = -1;

  constructor(
    readonly url: string,
    readonly symbol: string,
    readonly reconnect: boolean,
  ) {
    this.log = {
      symbol,
      readyAt: Number.NaN,
      ticks: [],
      closedAt: [],
      reconnectedAt: [],
      failures: 0,
      failedWith: {},
    };
  }

  /** Resolves once subscribed (its snapshot arrived) or, after three failed attempts, without. */
  async start(): Promise<void> {
    for (let attempt = 0; attempt < 3 && !this.#closing; attempt++) {
      if (await this.#open()) return;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  close(): void {
    this.#closing = true;
    this.#socket?.terminate();
  }

  /** One connection: true once its snapshot arrived, false if it failed first. */
  #open(): Promise<boolean> {
    const connection = ++this.#connection;
    const socket = new WebSocket(this.url, 'graphql-transport-ws');
    this.#socket = socket;
    let ready = false;
    let failed = false;
    return new Promise((resolve) => {
      const fail = (why: string) => {
        if (ready || failed) return;
        failed = true;
        this.log.failures++;
        this.log.failedWith[why] = (this.log.failedWith[why] ?? 0) + 1;
        socket.terminate();
        resolve(false);
      };
      socket.on('open', () => socket.send('{"type":"connection_init"}'));
      socket.on('message', (raw) => {
        if (failed) return;
        const text = String(raw);
        if (text.startsWith('{"type":"connection_ack"')) {
          const payload = { query: QUERY, variables: { s: [this.symbol] } };
          socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload }));
          return;
        }
        const message = JSON.parse(text) as {
          type: string;
          payload?: {
            data?: { prices?: { seq: number; price: number; snapshot: boolean } } | null;
            errors?: Array<{ extensions?: { code?: string } }>;
          };
        };
        const tick = message.payload?.data?.prices;
        if (message.type !== 'next' || !tick) {
          // A subscription refused at start gets a result with its error, then `complete`: the
          // error says why (its code first), the `complete` after it nothing more.
          const errors = message.type === 'next' ? message.payload?.errors : undefined;
          if (errors?.length) fail(`${errors[0]?.extensions?.code ?? 'error'}: ${text.slice(0, 160)}`);
          else if (message.type === 'error' || message.type === 'complete') fail(text.slice(0, 120));
          return;
        }
        const at = now();
        this.log.ticks.push(tick.price, tick.seq, at, tick.snapshot ? 1 : 0, connection);
        if (!ready) {
          ready = true;
          if (connection === 0 || Number.isNaN(this.log.readyAt)) this.log.readyAt = at;
          else this.log.reconnectedAt.push(at);
          resolve(true);
        }
      });
      socket.on('error', (error) => fail(error.message));
      socket.on('close', (code, reason) => {
        fail(`closed ${code} ${String(reason)}`.trim());
        if (!ready || this.#closing || this.#socket !== socket) return;
        this.log.closedAt.push(now());
        if (this.reconnect) void this.#retry();
      });
    });
  }

  /** Connects again until a connection has its snapshot (or the subscriber is closed). */
  async #retry(): Promise<void> {
    // Spread, as clients' retry jitter spreads a crowd that lost its server at the same moment.
    await new Promise((resolve) => setTimeout(resolve, 50 + Math.random() * 450));
    while (!this.#closing && !(await this.#open())) await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

if (!isMainThread && parentPort && (workerData as { scaleClients?: boolean })?.scaleClients)
  serve(parentPort);
