/**
 * Fair between owners: a well-behaved owner's event -> webhook latency while another owner has
 * BAD_ALERTS alerts aimed at a receiver that never answers (each of its events fires every one of
 * them), against the same owner's latency with no one else delivering (the baseline, same run).
 * Queue depth (deliveries not yet delivered or failed) and the oldest one's age are sampled every
 * second. Goal (issue 27): the good owner's p99 under 2 s.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inArray, sql } from 'drizzle-orm';
import { parseAlertInput } from '../../src/alerts/alert-input.wire.ts';
import { alertDeliveries } from '../../src/alerts/alerts.sql.ts';
import { type App, buildApp } from '../../src/app.ts';
import { parseConfig } from '../../src/config.ts';
import { createDeps } from '../../src/deps.ts';
import { modules } from '../../src/modules.ts';
import { effectiveScopes, type Principal } from '../../src/platform/access/principal.ts';
import { systemClock } from '../../src/platform/clock.ts';
import { type NewWatchdogEvent, WatchdogEventBus } from '../../src/watchdogs/event-bus.ts';
import { createFakeProvider } from '../support/fake-provider.ts';
import { createFreshDatabase } from '../support/postgres-database.ts';
import { counter, type Hit, Receiver } from './alerts-receiver.ts';
import { summarize } from './stats.ts';

const BAD_ALERTS = 500;
/** The good owner's events, this far apart, after WARMUP not counted. */
const GOOD_SPACING_MS = 250;
const GOOD_EVENTS = 80;
const WARMUP = 8;
/** The other owner's events (each fires its BAD_ALERTS alerts), this far apart meanwhile. */
const BAD_SPACING_MS = 2_000;
const GOAL_P99_MS = 2_000;
const LATENCY_CAP_MS = 120_000;

const good: Principal = { kind: 'key', id: 'bench-good', name: 'good', scopes: effectiveScopes(['write']) };
const bad: Principal = { kind: 'key', id: 'bench-bad', name: 'bad', scopes: effectiveScopes(['write']) };

type Row = Record<string, string | number>;

export interface FairnessResult {
  readonly latency: Row[];
  readonly queue: Row[];
  readonly verdict: string;
}

export const FAIRNESS_SETUP =
  `one owner's webhook, an event every ${GOOD_SPACING_MS} ms (${GOOD_EVENTS} counted), while another ` +
  `owner's ${BAD_ALERTS} alerts aim at a receiver that never answers (an event every ${BAD_SPACING_MS / 1000} s ` +
  `fires all of them; ALERT_DELIVERY_TIMEOUT_MS 10 s)`;

const ENV = {
  LOG_LEVEL: 'silent',
  WATCHDOGS_RUN: 'false',
  ALERT_DELIVERY_ALLOWED_HOSTS: '127.0.0.1',
  RATE_LIMIT_MAX: '1000000',
  ALERTS_MAX_PER_OWNER: '100000',
  ALERT_MAX_FIRINGS_PER_MINUTE: '10000',
};

export async function fairnessOnPglite(): Promise<FairnessResult> {
  const dataDir = mkdtempSync(join(tmpdir(), 'vigil-bench-fair-'));
  try {
    return await measure('pglite', await appOn({ ...ENV, DATA_DIR: dataDir }));
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function fairnessOnPostgres(serverUrl: string): Promise<FairnessResult> {
  const database = await createFreshDatabase(serverUrl, 'vigil_bench_fair');
  const dataDir = mkdtempSync(join(tmpdir(), 'vigil-bench-fair-'));
  try {
    return await measure(
      'postgres',
      await appOn({
        ...ENV,
        DATA_DIR: dataDir,
        DATABASE_URL: database.url,
        SECRETS_KEY: randomBytes(32).toString('hex'),
      }),
    );
  } finally {
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function appOn(env: Record<string, string>): Promise<App> {
  const fake = createFakeProvider('bench', { capabilities: ['quote'] });
  return buildApp(await createDeps(parseConfig(env), { providers: [fake] }), modules);
}

/** Takes every request and never answers. */
async function silentReceiver(): Promise<Server> {
  const server = createServer((request) => request.resume());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

async function measure(label: string, app: App): Promise<FairnessResult> {
  const receiver = new Receiver();
  await receiver.start();
  const silent = await silentReceiver();
  try {
    await app.start({ port: 0, host: '127.0.0.1' });
    await app.warmedUp;
    const { database } = app.deps;
    const bus = new WatchdogEventBus({ database, clock: systemClock, logger: app.deps.logger });
    const publish = (symbol: string, seq: number) =>
      database.db.transaction((tx) => bus.publish(tx, benchEvent(symbol, seq)));
    const hits = new Map<string, (hit: Hit) => void>();
    receiver.onHit = (hit) => hits.get(hit.path)?.(hit);
    const create = (owner: Principal, id: string, symbol: string, url: string) =>
      app.deps.alerts.store.create(owner, parseAlertInput(alertBody(id, symbol, url)));

    await create(good, 'good', 'GOOD', `${receiver.base}/good`);
    const alone = await goodLatency(hits, (i) => publish('GOOD', i), 0);

    const silentUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/hook`;
    for (let i = 0; i < BAD_ALERTS; i++) await create(bad, `hang-${i}`, 'BAD', silentUrl);
    const samples: Row[] = [];
    const started = performance.now();
    let running = true;
    const sampling = (async () => {
      while (running) {
        samples.push({
          database: label,
          's into the run': Math.round((performance.now() - started) / 1000),
          ...(await queueState(app)),
        });
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
    })();
    let badSeq = 0;
    const badEvents = setInterval(() => void publish('BAD', badSeq++), BAD_SPACING_MS);
    void publish('BAD', badSeq++);
    let loaded: number[];
    try {
      loaded = await goodLatency(hits, (i) => publish('GOOD', i), 100_000);
    } finally {
      clearInterval(badEvents);
      running = false;
      await sampling;
    }
    const base = summarize(alone);
    const row = (path: string, s: ReturnType<typeof summarize>): Row => ({
      database: label,
      path,
      n: String(s.n),
      'p50 ms': s.p50,
      'p99 ms': s.p99,
      'max ms': s.max,
      'p99 x alone': s.p99 / base.p99,
    });
    const withBad = summarize(loaded);
    const queue = samples.filter((_, i) => i % 5 === 0 || i === samples.length - 1);
    const peak = Math.max(...samples.map((s) => Number(s.depth)));
    const verdict =
      `${label}: the good owner's p99 ${Math.round(withBad.p99)} ms beside ${BAD_ALERTS} hanging alerts ` +
      `(${Math.round(base.p99)} ms alone; goal < ${GOAL_P99_MS}: ${withBad.p99 < GOAL_P99_MS ? 'met' : 'NOT met'}); ` +
      `queue depth up to ${peak}, ${badSeq} of the other owner's events fired`;
    return {
      latency: [
        row('good owner alone (baseline)', base),
        row(`beside ${BAD_ALERTS} hanging alerts`, withBad),
      ],
      queue,
      verdict,
    };
  } finally {
    await app.stop();
    await receiver.close();
    silent.closeAllConnections();
    await new Promise((resolve) => silent.close(resolve));
  }
}

/** Deliveries not yet delivered or failed, by status, and the oldest one's age. */
async function queueState(app: App): Promise<Row> {
  const waiting = ['pending', 'retrying', 'sending', 'held'] as const;
  const rows = await app.deps.database.db
    .select({
      status: alertDeliveries.status,
      n: sql<number>`count(*)::int`,
      oldest: sql<string | null>`min(${alertDeliveries.createdAt})`,
    })
    .from(alertDeliveries)
    .where(inArray(alertDeliveries.status, [...waiting]))
    .groupBy(alertDeliveries.status);
  const by = Object.fromEntries(rows.map((r) => [r.status, r.n]));
  const oldest = rows
    .map((r) => (r.oldest ? Date.parse(r.oldest) : Number.NaN))
    .filter((t) => !Number.isNaN(t));
  return {
    depth: rows.reduce((sum, r) => sum + r.n, 0),
    held: by.held ?? 0,
    sending: by.sending ?? 0,
    'pending+retrying': (by.pending ?? 0) + (by.retrying ?? 0),
    'oldest s': oldest.length ? (Date.now() - Math.min(...oldest)) / 1000 : 0,
  };
}

/** The good owner's event -> webhook latencies, WARMUP not counted. */
async function goodLatency(
  hits: Map<string, (hit: Hit) => void>,
  send: (seq: number) => Promise<unknown>,
  seqBase: number,
): Promise<number[]> {
  const total = WARMUP + GOOD_EVENTS;
  const startedAt = new Map<number, number>();
  const arrivedAt = new Map<number, number>();
  const all = counter(total, LATENCY_CAP_MS, 'good owner: received');
  hits.set('/good', (hit) => {
    const i = hit.seq - seqBase;
    if (i < 0 || i >= total || arrivedAt.has(i)) return;
    arrivedAt.set(i, hit.at);
    all.tick();
  });
  for (let i = 0; i < total; i++) {
    startedAt.set(i, performance.now());
    await send(seqBase + i);
    await new Promise((resolve) => setTimeout(resolve, GOOD_SPACING_MS));
  }
  await all.all;
  hits.delete('/good');
  const out: number[] = [];
  for (let i = WARMUP; i < total; i++) out.push(arrivedAt.get(i)! - startedAt.get(i)!);
  return out;
}

function alertBody(id: string, symbol: string, url: string) {
  return {
    alert_id: id,
    name: id,
    trigger: { type: 'watchdog_event', event_filter: { event_types: ['price_anomaly'], assets: [symbol] } },
    delivery_methods: ['webhook'],
    webhook_config: { url },
    cooldown_seconds: 0,
  };
}

function benchEvent(symbol: string, seq: number): NewWatchdogEvent {
  return {
    watchdog: 'price_anomaly',
    eventType: 'price_anomaly',
    severity: 'high',
    symbol,
    asset: { symbol, assetType: 'equity' },
    description: `${symbol} moved +6.00% in 15 min`,
    data: { seq, change: 0.06 },
  };
}
