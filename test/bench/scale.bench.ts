import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism, freemem, loadavg } from 'node:os';
import { createFreshDatabase } from '../support/postgres-database.ts';
import { type Clients, scaleClients } from './scale-clients.ts';
import { check } from './scale-figures.ts';
import { type Instance, instanceCommand, metrics, startInstances } from './scale-instances.ts';
import { killOwner } from './scale-kill.ts';
import {
  BUSY_PROCESSES,
  GRACE_MS,
  INSTANCE_SETTINGS,
  INSTANCES,
  POLL_INTERVAL_MS,
  SERVER,
  SUBSCRIBERS,
  SYMBOLS,
  TICK_MS,
  WINDOW_S,
} from './scale-settings.ts';
import { now, type ScaleUpstream, startScaleUpstream } from './scale-upstream.ts';
import { summarize, table } from './stats.ts';
import { startTcpProxy } from './tcp-proxy.ts';

/**
 * Many instances, one market (issue 31): N graphql-ws subscribers of `prices` (one symbol each,
 * spread over SYMBOLS symbols) through a round-robin TCP proxy (tcp-proxy.ts), first to ONE Vigil
 * instance, then to INSTANCES instances on one Postgres database (a database of its own, dropped
 * after), every instance reading quotes from one counting fake upstream over HTTP
 * (scale-upstream.ts; the provider in scale-instance.ts). The upstream moves every symbol's price
 * every TICK_MS. Measured over WINDOW_S seconds:
 * - upstream calls per minute (the upstream's own count), and the ratio of many instances to one;
 * - tick latency, upstream change -> client receipt (includes the wait for the next poll) and first
 *   fetch -> client receipt (the path through Vigil and the relay), p50/p99, and the p99 ratio. The
 *   first fetch is any instance's: where every instance polls on its own (no feed coordinator, or
 *   PRICE_RELAY=off) the others' subscribers wait for their own instance's later fetch, and the
 *   figure shows how far apart the instances' prices are;
 * - versions lost, duplicated, out of order or invented per subscriber (scale-figures.ts);
 * - CPU of each instance and of the benchmark's process, and the load average: on a small machine
 *   every instance, Postgres and the 5,000 clients share the same cores, which the table shows.
 * Then the instance owning the most feeds (`vigil_price_feeds_owned`, read from each instance's own
 * /metrics) is killed with SIGKILL (scale-kill.ts): time until every feed is owned again, against
 * two poll intervals, and how many of its subscribers reconnected through the proxy and resumed.
 * SCALE_SUBSCRIBERS (default 5000), SCALE_SYMBOLS (50), SCALE_INSTANCES (3), SCALE_WINDOW_S (30),
 * SCALE_TICK_MS (5000: longer than a poll interval plus the 2 s a crypto quote stays cached, so
 * that every polling instance sees every version), SCALE_RECOVERY_S (20), SCALE_POLL_INTERVAL_MS
 * (PRICE_POLL_INTERVAL_MS of the instances, 1000, the default), SCALE_BUSY_PROCESSES (0: that many
 * busy-looping processes beside the benchmark, for a loaded machine's figures), SCALE_INSTANCE_ENV
 * (more settings for the instances, `PRICE_RELAY=off,MARKET_DATA_SHARED_CACHE=off` for the figures
 * of instances that each poll on their own). The Postgres server is
 * DATABASE_URL when set, else postgres://postgres@127.0.0.1:5432/postgres. One instance is also
 * reached through the proxy, so both setups pay the same extra hop. The instances run a bundle of
 * this checkout's sources, or of SCALE_SOURCE_ROOT's (another copy, say `git archive` of an earlier
 * commit, for a before-and-after comparison).
 */
const SETTLE_MS = 5_000;

type Row = Record<string, string | number>;

export async function run(): Promise<void> {
  const load = () =>
    loadavg()
      .map((l) => l.toFixed(2))
      .join(' ');
  process.stdout.write(
    `machine: ${availableParallelism()} cores, ${Math.round(freemem() / 2 ** 20)} MB free, load average ${load()}\n` +
      `${SUBSCRIBERS} subscribers on ${SYMBOLS.length} symbols, upstream price change every ${TICK_MS} ms, ` +
      `window ${WINDOW_S} s; instance settings ${JSON.stringify(INSTANCE_SETTINGS)}\n`,
  );
  // A loaded machine, when asked for: processes that keep a core each busy until the end.
  const busy = Array.from({ length: BUSY_PROCESSES }, () =>
    spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }),
  );
  if (busy.length) process.stdout.write(`${busy.length} busy-looping processes run beside the benchmark\n`);
  if (WINDOW_S * 1_000 < 2 * TICK_MS + GRACE_MS)
    process.stdout.write(
      `note: a window of ${WINDOW_S} s holds too few price changes (every ${TICK_MS} ms; the last ${GRACE_MS} ms are left to arrive) for latency figures\n`,
    );
  const upstream = await startScaleUpstream(SYMBOLS, TICK_MS);
  const command = await instanceCommand();
  const clients = scaleClients();
  const rows: Row[] = [];
  const notes: string[] = [];
  try {
    for (const count of [1, INSTANCES]) {
      const measured = await onDatabase(async (url) => {
        const instances = await startInstances(command, count, instanceEnv(url, upstream));
        const proxy = await startTcpProxy(instances.map((i) => i.port));
        try {
          const symbols = Array.from({ length: SUBSCRIBERS }, (_, i) => SYMBOLS[i % SYMBOLS.length]!);
          const { ms } = await clients.connect(`ws://127.0.0.1:${proxy.port}/graphql`, symbols, count > 1);
          process.stdout.write(
            `${count} instance(s): ${SUBSCRIBERS} subscribed in ${(ms / 1000).toFixed(1)} s; load average ${load()}\n`,
          );
          const row = await measureWindow(`${count} instance(s)`, instances, upstream, clients);
          const spread = [...proxy.connections.values()].join(' / ');
          notes.push(
            `${count} instance(s): connections per instance ${spread}; ${await relayState(instances)}`,
          );
          notes.push(`${count} instance(s): ${await failuresOf(clients)}; ${saturation(row)}`);
          if (count > 1) rows.push(row, ...(await killOwner({ instances, upstream, clients, proxy, notes })));
          else rows.push(row);
          return row;
        } finally {
          await clients.close();
          await proxy.close();
          await Promise.all(instances.map((i) => i.stop()));
        }
      });
      if (!measured) return;
    }
  } finally {
    await clients.stop();
    await upstream.close();
    for (const child of busy) child.kill('SIGKILL');
  }
  process.stdout.write(`${table(rows.filter((r) => 'calls/min' in r))}\n`);
  const [one, many] = rows.filter((r) => 'calls/min' in r);
  if (one && many) {
    const ratio = (key: string) => Number(many[key]) / Number(one[key]);
    process.stdout.write(
      `ratio ${INSTANCES}/1: upstream calls/min ${ratio('calls/min').toFixed(2)} (goal <= 1.1), ` +
        `p99 fetch->client ${ratio('p99 fetch ms').toFixed(2)} (goal <= 1.5), ` +
        `p99 change->client ${ratio('p99 change ms').toFixed(2)}\n`,
    );
  }
  const kill = rows.filter((r) => !('calls/min' in r));
  if (kill.length) process.stdout.write(`\nkill -9 of the instance owning the most feeds\n${table(kill)}\n`);
  for (const note of notes) process.stdout.write(`${note}\n`);
}

function instanceEnv(databaseUrl: string, upstream: ScaleUpstream): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    SCALE_UPSTREAM_URL: upstream.url,
    WATCHDOGS_RUN: 'false',
    // Every client comes through the proxy from 127.0.0.1: the per-client bounds are lifted.
    WS_MAX_CONNECTIONS_PER_CLIENT: String(SUBSCRIBERS + 100),
    RATE_LIMIT_MAX: '1000000',
    PRICE_POLL_INTERVAL_MS: String(POLL_INTERVAL_MS),
    ...INSTANCE_SETTINGS,
  };
}

/** Runs `body` on a fresh database of its own (dropped after); undefined when there is no server. */
async function onDatabase<T>(body: (url: string) => Promise<T>): Promise<T | undefined> {
  const database = await createFreshDatabase(SERVER, 'vigil_bench_scale').catch((error: unknown) => {
    process.stdout.write(`skipped: no Postgres server at ${SERVER} (${String(error)})\n`);
    return undefined;
  });
  if (!database) return undefined;
  try {
    return await body(database.url);
  } finally {
    await database.drop();
  }
}

/** One measured window on the instances: upstream calls, latency, lost and duplicated ticks, CPU. */
async function measureWindow(
  label: string,
  instances: readonly Instance[],
  upstream: ScaleUpstream,
  clients: Clients,
): Promise<Row> {
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  const cpuBefore = instances.map((i) => cpuMs(i.child.pid));
  const benchBefore = process.cpuUsage();
  const [from, callsBefore] = [now(), upstream.calls.total];
  await new Promise((resolve) => setTimeout(resolve, WINDOW_S * 1_000));
  const [to, calls] = [now(), upstream.calls.total - callsBefore];
  const elapsed = to - from;
  const cpu = instances.map((i, k) => ((cpuMs(i.child.pid) - cpuBefore[k]!) / elapsed) * 100);
  const bench = process.cpuUsage(benchBefore);
  await new Promise((resolve) => setTimeout(resolve, GRACE_MS));
  const logs = await clients.collect();
  const c = check(logs, (s) => upstream.versions.get(s) ?? [], {
    from,
    to: to - GRACE_MS,
    graceMs: GRACE_MS,
  });
  const [change, fetched] = [summarize(c.fromChangeMs), summarize(c.fromFetchMs)];
  return {
    setup: label,
    'calls/min': (calls / elapsed) * 60_000,
    subscribers: String(c.subscribers),
    'not subscribed': String(logs.filter((l) => !Number.isFinite(l.readyAt)).length),
    'failed connects': String(logs.reduce((n, l) => n + l.failures, 0)),
    deliveries: String(c.deliveries),
    'p50 change ms': change.p50,
    'p99 change ms': change.p99,
    'p50 fetch ms': fetched.p50,
    'p99 fetch ms': fetched.p99,
    lost: String(c.lost),
    'subs losing': String(c.subscribersLosing),
    dup: String(c.duplicated),
    'out of order': String(c.outOfOrder),
    invented: String(c.invented),
    'instance CPU %': cpu.map((x) => x.toFixed(0)).join('/'),
    'bench CPU %': (((bench.user + bench.system) / 1000 / elapsed) * 100).toFixed(0),
    load: loadavg()[0]!.toFixed(2),
  };
}

/** Why subscribers' connection attempts failed (they were retried), most frequent first. */
async function failuresOf(clients: Clients): Promise<string> {
  const reasons = new Map<string, number>();
  for (const log of await clients.collect())
    for (const [why, n] of Object.entries(log.failedWith)) reasons.set(why, (reasons.get(why) ?? 0) + n);
  if (reasons.size === 0) return 'no failed connection attempt';
  const top = [...reasons].sort((a, b) => b[1] - a[1]).slice(0, 3);
  return `failed connection attempts (retried): ${top.map(([why, n]) => `${n} x ${why}`).join(', ')}`;
}

/**
 * Whether the machine was the limit: the CPU the instances and the benchmark's process (upstream,
 * proxy, clients) used in the window, against every core, and the load average (other processes too).
 */
function saturation(row: Row): string {
  const cores = availableParallelism();
  const instances = String(row['instance CPU %'])
    .split('/')
    .reduce((s, x) => s + Number(x), 0);
  const used = instances + Number(row['bench CPU %']);
  const load = Number(row.load);
  const verdict =
    used > 80 * cores
      ? 'SATURATED by the benchmark itself: figures are bounded by the machine'
      : load > cores
        ? 'the machine was busy with other work (load above its cores): latency includes waiting for a core'
        : 'the machine had room';
  return `CPU used by instances + benchmark ${used.toFixed(0)} % of ${cores * 100} %, load ${load.toFixed(2)} on ${cores} cores: ${verdict}`;
}

/** What each instance says about its feeds (the engine's metrics, when it exports them). */
async function relayState(instances: readonly Instance[]): Promise<string> {
  const names = [
    'vigil_price_feeds_owned',
    'vigil_price_feeds_followed',
    'vigil_price_relay_up',
    'vigil_price_hub_feeds',
  ];
  const states = await Promise.all(instances.map((i) => metrics(i, names)));
  return states
    .map(
      (m, k) =>
        `${instances[k]!.name}: ${names.map((n) => `${n.replace('vigil_price_', '')}=${m[n] ?? 'absent'}`).join(' ')}`,
    )
    .join('; ');
}

/** CPU time (user + system) of a process in ms, from /proc (NaN where there is none). */
export function cpuMs(pid: number | undefined): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}
