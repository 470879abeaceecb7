import { createServer, type Server } from 'node:http';

/**
 * The scale benchmark's upstream: a counting fake provider behind HTTP, shared by every Vigil
 * instance the benchmark starts (scale-instance.ts reads it through its `bench` provider). Each
 * symbol's price moves to a new value every `tickMs`; a price is `1000 + version`, so a price a
 * client receives names the version it is and when that version was made (and first served).
 * `GET /quote/<symbol>` answers the current version; every request is counted.
 */
export interface PriceVersion {
  readonly price: number;
  /** When this price became the upstream's current one (ms on the shared clock, `now()`). */
  readonly changedAt: number;
  /** When an instance first fetched it, if one did. */
  firstServedAt: number | undefined;
}

export interface ScaleUpstream {
  readonly url: string;
  /** Requests answered, in all and per symbol. */
  readonly calls: { total: number; bySymbol: Map<string, number> };
  /** Every request: its symbol, the instance that sent it (its x-bench-instance header) and when. */
  readonly callLog: Array<{ readonly symbol: string; readonly instance: string; readonly at: number }>;
  /** Every version made, per symbol, oldest first. */
  readonly versions: Map<string, PriceVersion[]>;
  /** The version a received price is, if the upstream ever made it. */
  versionOf(symbol: string, price: number): PriceVersion | undefined;
  close(): Promise<void>;
}

export const BASE_PRICE = 1000;

/** Milliseconds on a clock every thread of the benchmark's process shares. */
export function now(): number {
  return performance.timeOrigin + performance.now();
}

export async function startScaleUpstream(symbols: readonly string[], tickMs: number): Promise<ScaleUpstream> {
  const versions = new Map<string, PriceVersion[]>();
  const calls = { total: 0, bySymbol: new Map<string, number>() };
  const callLog: ScaleUpstream['callLog'] = [];
  const advance = () => {
    const at = now();
    for (const symbol of symbols) {
      const list = versions.get(symbol) ?? [];
      list.push({ price: BASE_PRICE + list.length, changedAt: at, firstServedAt: undefined });
      versions.set(symbol, list);
    }
  };
  advance();
  const timer = setInterval(advance, tickMs);
  const server: Server = createServer((request, response) => {
    const symbol = decodeURIComponent((request.url ?? '').replace(/^\/quote\//, ''));
    const current = versions.get(symbol)?.at(-1);
    calls.total++;
    callLog.push({ symbol, instance: String(request.headers['x-bench-instance'] ?? ''), at: now() });
    calls.bySymbol.set(symbol, (calls.bySymbol.get(symbol) ?? 0) + 1);
    if (!current) {
      response.writeHead(404).end();
      return;
    }
    current.firstServedAt ??= now();
    const body = {
      symbol,
      price: current.price,
      asOf: new Date(Math.round(current.changedAt)).toISOString(),
    };
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    calls,
    callLog,
    versions,
    versionOf: (symbol, price) => versions.get(symbol)?.[price - BASE_PRICE],
    close: () =>
      new Promise((resolve) => {
        clearInterval(timer);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
