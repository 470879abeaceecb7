import { sql } from 'drizzle-orm';
import type { Executor } from '../../src/platform/db/database.ts';
import { queryRows } from '../../src/platform/db/raw.ts';
import type { NewWatchdogEvent } from '../../src/watchdogs/event-bus.ts';

/**
 * Faults for the tests of durable firing. Every firing statement fails as a lock timeout does
 * (SQLSTATE 55P03) while `failFirings` is in force: the embedded database has one connection, so
 * nothing can hold a lock against it, and this is what a held lock looks like to the firing.
 */
export async function failFirings(db: Executor): Promise<void> {
  await db.execute(
    sql.raw(`create or replace function vigil_test_fail_firings() returns trigger language plpgsql as $$
      begin
        raise exception 'canceling statement due to lock timeout (injected)' using errcode = '55P03';
      end $$`),
  );
  await healFirings(db);
  await db.execute(
    sql.raw(`create trigger vigil_test_fail_firings before insert on alert_firings
      for each statement execute function vigil_test_fail_firings()`),
  );
}

export async function healFirings(db: Executor): Promise<void> {
  await db.execute(sql.raw('drop trigger if exists vigil_test_fail_firings on alert_firings'));
}

/**
 * Firing jobs of this instance's queue that run now or are due within `ms`: none means that an
 * instance killed now is killed between its events and their firings, not in the middle of one.
 */
export async function firingJobsBusy(db: Executor, ms: number): Promise<number> {
  const [row] = await queryRows<{ n: number }>(
    db,
    sql`select count(*)::int as n from pgboss.job where name = 'alerts.fire'
      and (state = 'active' or (state in ('created', 'retry') and start_after < now() + make_interval(secs => ${ms / 1_000}::float8)))`,
  );
  return row?.n ?? 0;
}

/** How many firings each (alert, event) pair of `eventIds` has. */
export async function firingCounts(db: Executor, eventIds: readonly string[]): Promise<Map<string, number>> {
  const rows = await queryRows<{ alert_id: string; event_id: string; n: number }>(
    db,
    sql`select alert_id, event_id, count(*)::int as n from alert_firings
      where event_id in ${
        eventIds.length > 0
          ? sql`(${sql.join(
              eventIds.map((id) => sql`${id}`),
              sql`, `,
            )})`
          : sql`('')`
      }
      group by alert_id, event_id`,
  );
  return new Map(rows.map((r) => [`${r.alert_id} ${r.event_id}`, r.n]));
}

/** A marker that must never reach a log line: it is in the events' description. */
export const EVENT_MARKER = 'marker-7f3a-never-in-logs';

export const crashEvent = (i: number): NewWatchdogEvent => ({
  watchdog: 'price_anomaly',
  eventType: 'flash_crash',
  severity: 'critical',
  symbol: 'BTC/USDT',
  asset: { symbol: 'BTC/USDT', assetType: 'crypto' },
  description: `BTC/USDT fell 12% in 4 minutes (${EVENT_MARKER} ${i})`,
  data: { change: -0.12, note: EVENT_MARKER },
});

/** Alerts on every flash crash, without a cooldown: each event fires each of them. */
export const crashAlert = (id: string, webhookUrl: string) => ({
  alert_id: id,
  name: `crash ${id}`,
  trigger: { type: 'watchdog_event', event_filter: { event_types: ['flash_crash'] } },
  delivery_methods: ['webhook'],
  webhook_config: { url: webhookUrl },
  cooldown_seconds: 0,
});
