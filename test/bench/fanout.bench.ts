import { rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { bundledServer } from './bundled-server.ts';
import {
  clientWorker,
  compare,
  fanoutServer,
  measure,
  SYMBOLS,
  sleep,
  withBareServer,
} from './fanout-clients.ts';
import { table } from './stats.ts';

/**
 * GraphQL subscription fan-out: N graphql-ws subscribers of `prices` for 10 symbols (one tick per
 * symbol per second, the symbols 100 ms apart) over loopback, against a bare `ws` server
 * broadcasting `next` messages of the same shape and size to N clients in the same run. The
 * clients run in a worker thread (fanout-clients.ts), so the server's CPU is the main thread's.
 * Measured: time to connect, subscribe and get every snapshot, delivery latency from the upstream
 * tick to each client, CPU per delivered message (the server's, and the whole process's), and
 * server heap per subscriber. The server's code is bundled as `npm start` runs it (bundled-server.ts).
 * Each N is measured on both GRAPHQL_WS_SERVER values (Vigil's socket glue and graphql-ws's own
 * `useServer`), so the custom transport keeps showing what it earns.
 * FANOUT_SIZES sets N (default 1000,5000), FANOUT_ROUNDS the measured
 * rounds (default 8).
 */
type FakeOf = ReturnType<typeof fanoutServer>['fake'];

const SIZES = (process.env.FANOUT_SIZES ?? '1000,5000').split(',').map(Number);
const ROUNDS = Number(process.env.FANOUT_ROUNDS ?? 8);
const GAP_MS = 100;

const QUERY = `subscription ($symbols: [String!]!) { prices(symbols: $symbols, intervalMs: 250) {
  symbol price change changePercent volume currency asOf provider snapshot marketState } }`;

export async function run(): Promise<void> {
  const most = Math.max(...SIZES);
  const server = await bundledServer();
  const { buildApp, createDeps, modules } = server;
  const apps: Array<{ kind: string; url: string; stop(): Promise<void>; fake: FakeOf; dataDir: string }> = [];
  for (const kind of ['vigil', 'library']) {
    const { dataDir, fake, config } = fanoutServer(server, most, { GRAPHQL_WS_SERVER: kind });
    const app = buildApp(await createDeps(config, { providers: [fake] }), modules);
    const { url } = await app.start({ port: 0, host: '127.0.0.1' });
    apps.push({ kind, url, stop: () => app.stop(), fake, dataDir });
  }
  const clients = clientWorker();
  const rows: Array<Record<string, string | number>> = [];
  const subscribe = JSON.stringify({
    id: '1',
    type: 'subscribe',
    payload: { query: QUERY, variables: { symbols: SYMBOLS } },
  });
  try {
    for (const n of SIZES) {
      process.stdout.write(
        `N=${n}: load average ${loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')}\n`,
      );
      const rounds = { perRound: SYMBOLS.length, gapMs: GAP_MS, rounds: ROUNDS };
      const bare = await withBareServer(bareMessage, (port, broadcast) =>
        measure(clients, n, `ws://127.0.0.1:${port}`, { kind: 'plain' }, '"price":', {
          ...rounds,
          emit: broadcast,
        }),
      );
      for (const [i, { kind, url, fake }] of apps.entries()) {
        const vigil = await measure(
          clients,
          n,
          `${url.replace('http', 'ws')}/graphql`,
          { kind: 'graphql-ws', count: SYMBOLS.length, subscribe },
          '"price":',
          { ...rounds, emit: (key, s) => fake.emit(SYMBOLS[s]!, key) },
        );
        for (let w = 0; w < 200 && fake.streams.size > 0; w++) await sleep(25);
        // The baseline row once per N; a ratio row per server.
        rows.push(
          ...compare(n, `graphql-ws prices (GRAPHQL_WS_SERVER=${kind})`, bare, vigil).slice(i === 0 ? 0 : 1),
        );
      }
    }
  } finally {
    await clients.stop();
    for (const { stop, dataDir } of apps) {
      await stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  process.stdout.write(`${table(rows)}\n`);
  process.stdout.write(
    'goals (issue): p99 < 100 ms at 5,000; CPU <= 2x the bare broadcast; 5,000 connected in < 10 s\n',
  );
}

/** A graphql-ws `next` message of `prices`, as Vigil sends it for the bench's query. */
function bareMessage(key: number, i: number) {
  const prices = {
    symbol: SYMBOLS[i],
    price: key,
    change: 1.5,
    changePercent: 0.12,
    volume: 123456,
    currency: 'USD',
    asOf: new Date().toISOString(),
    provider: 'bench',
    snapshot: false,
    marketState: 'REGULAR',
  };
  return { id: '1', type: 'next', payload: { data: { prices } } };
}
