/**
 * A Vigil instance for the crash benchmark (alerts-crash.ts): the app as `npm start` composes it
 * (no port), on the database its environment names, driven by lines on stdin:
 *   `alerts N URL`  N webhook alerts to URL, each on every price_anomaly event of BENCH;
 *   `publish N - A` N such events, stored as the watchdogs store them (each fires every alert),
 *                   answered once A deliveries per event are stored;
 *   `stats`         the deliveries by status, as a JSON line.
 * It writes a JSON line when started: `{"ready": true, "sending": [ids of the deliveries claimed when
 * it started]}` (after a kill, the attempts the killed instances had under way). It is then killed
 * (SIGKILL) by the benchmark, or ends when stdin closes.
 */
import { createInterface } from 'node:readline';
import { eq, sql } from 'drizzle-orm';
import { parseAlertInput } from '../../src/alerts/alert-input.wire.ts';
import { alertDeliveries } from '../../src/alerts/alerts.sql.ts';
import { buildApp } from '../../src/app.ts';
import { parseConfig } from '../../src/config.ts';
import { createDeps } from '../../src/deps.ts';
import { modules } from '../../src/modules.ts';
import { anonymousPrincipal } from '../../src/platform/access/principal.ts';
import { createLogger } from '../../src/platform/observability/logger.ts';
import { WatchdogEventBus } from '../../src/watchdogs/event-bus.ts';

const config = parseConfig({ ...process.env });
const deps = await createDeps(config, { logger: createLogger(config.logLevel) });
const db = deps.database.db;

const deliveries = async (): Promise<number> => {
  const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(alertDeliveries);
  return row?.n ?? 0;
};
const byStatus = async (): Promise<Record<string, number>> => {
  const rows = await db
    .select({ status: alertDeliveries.status, n: sql<number>`count(*)::int` })
    .from(alertDeliveries)
    .groupBy(alertDeliveries.status);
  return Object.fromEntries(rows.map((r) => [r.status, r.n]));
};

// Before the app starts: what the killed instances left claimed.
const claimed = await db
  .select({ id: alertDeliveries.id })
  .from(alertDeliveries)
  .where(eq(alertDeliveries.status, 'sending'));
const app = buildApp(deps, modules);
await app.startWithoutListening();
await app.warmedUp;
const bus = new WatchdogEventBus({ database: deps.database, clock: deps.clock, logger: deps.logger });
const anyone = anonymousPrincipal(false);
let published = 0;

process.stdout.write(`${JSON.stringify({ ready: true, sending: claimed.map((r) => r.id) })}\n`);
for await (const line of createInterface({ input: process.stdin })) {
  const [command, count, url, expect] = line.trim().split(' ');
  if (command === 'alerts') {
    for (let i = 0; i < Number(count); i++) {
      await app.deps.alerts.store.create(
        anyone,
        parseAlertInput({
          alert_id: `crash-${i}`,
          name: `crash ${i}`,
          trigger: { type: 'watchdog_event', event_filter: { assets: ['BENCH'] } },
          delivery_methods: ['webhook'],
          webhook_config: { url },
          cooldown_seconds: 0,
        }),
      );
    }
    process.stdout.write(`${JSON.stringify({ alerts: Number(count) })}\n`);
  } else if (command === 'publish') {
    for (let i = 0; i < Number(count); i++) {
      const seq = published++;
      await db.transaction((tx) =>
        bus.publish(tx, {
          watchdog: 'price_anomaly',
          eventType: 'price_anomaly',
          severity: 'high',
          symbol: 'BENCH',
          asset: { symbol: 'BENCH', assetType: 'equity' },
          description: `BENCH moved +6.00% in 15 min (${seq})`,
          data: { seq },
        }),
      );
    }
    // Answered once every event has fired (its deliveries stored): the kill then cuts deliveries
    // short, not firings (those are resumed too, but only once their jobs expire).
    const expected = Number(expect) * published;
    while ((await deliveries()) < expected) await new Promise((r) => setTimeout(r, 10));
    process.stdout.write(`${JSON.stringify({ published: Number(count) })}\n`);
  } else if (command === 'stats') {
    process.stdout.write(`${JSON.stringify({ stats: await byStatus() })}\n`);
  }
}
await app.stop();
