/**
 * The feed leases' statements (feed-coordinator.ts), all in database time, so instances whose
 * clocks differ agree on when a lease has expired. One round of an instance is three statements
 * whatever the number of feeds (each list is one array parameter).
 */
import { sql } from 'drizzle-orm';
import type { Executor } from '../../platform/db/database.ts';
import { queryRows } from '../../platform/db/raw.ts';
import { priceFeedInterest, priceFeedLeases, priceRelayInstances } from './relay.sql.ts';

export interface WantedFeed {
  readonly key: string;
  readonly instrument: Record<string, unknown>;
}

export interface RoundState {
  /** Feeds this instance holds after the round's renewal. */
  readonly owned: string[];
  /**
   * This instance's wanted feeds that no live instance holds; `orphaned` when one held it (its
   * lease expired, or its holder stopped heartbeating) rather than none ever did.
   */
  readonly unowned: Array<{ key: string; orphaned: boolean }>;
  readonly liveInstances: number;
  /** Feeds wanted by any live instance. */
  readonly wanted: number;
  /** Feeds this instance holds that another live instance wants too (it could hand them over). */
  readonly sharedOwned: string[];
}

/**
 * Heartbeats, states what this instance wants (dropping what it no longer wants), renews its leases
 * of the feeds it still wants and gives up the others; answers what the round found.
 * `ttlMs`: a lease's life from now; `liveMs`: how old a heartbeat or interest may be to count.
 */
export async function leaseRound(
  db: Executor,
  instance: string,
  wanted: readonly WantedFeed[],
  ttlMs: number,
  liveMs: number,
): Promise<RoundState> {
  const keys = wanted.map((w) => w.key);
  await db.execute(sql`
    with hb as (
      insert into ${priceRelayInstances} (instance, seen_at) values (${instance}, now())
      on conflict (instance) do update set seen_at = now()
    ), gone as (
      delete from ${priceFeedInterest} where instance = ${instance}
        and not (feed_key = any(${sql.param(keys)}::text[]))
    )
    insert into ${priceFeedInterest} (feed_key, instance, instrument, seen_at)
    select k, ${instance}, i::jsonb, now()
    from unnest(${sql.param(keys)}::text[], ${sql.param(wanted.map((w) => JSON.stringify(w.instrument)))}::text[]) as w(k, i)
    on conflict (feed_key, instance) do update set seen_at = now()
      -- Written again only once half its life has gone: most rounds change no row.
      where ${priceFeedInterest.seenAt} < now() - make_interval(secs => ${liveMs / 2_000}::float8)`);
  const live = sql`now() - make_interval(secs => ${liveMs / 1_000}::float8)`;
  const [counts] = await queryRows<{
    owned: string[] | null;
    shared: string[] | null;
    live: number;
    wanted: number;
  }>(
    db,
    sql`
    with fresh as (
      select distinct feed_key from ${priceFeedInterest} where seen_at > ${live}
    ), released as (
      -- Feeds no longer wanted here are given up (an instance that wants one takes it).
      delete from ${priceFeedLeases} where owner = ${instance} and not (feed_key = any(${sql.param(keys)}::text[]))
    ), renewed as (
      update ${priceFeedLeases} set expires_at = now() + make_interval(secs => ${ttlMs / 1_000}::float8)
      where owner = ${instance} and feed_key = any(${sql.param(keys)}::text[])
      returning feed_key
    )
    select (select array_agg(feed_key) from renewed) as owned,
      (select array_agg(distinct i.feed_key) from ${priceFeedInterest} as i
        where i.instance <> ${instance} and i.seen_at > ${live}
          and i.feed_key in (select feed_key from renewed)) as shared,
      (select count(*)::int from ${priceRelayInstances} where seen_at > ${live}) as live,
      (select count(*)::int from fresh) as wanted`,
  );
  const unowned = await queryRows<{ key: string; orphaned: boolean }>(
    db,
    sql`
    select k as key, l.feed_key is not null as orphaned
    from unnest(${sql.param(keys)}::text[]) as k
    left join ${priceFeedLeases} as l on l.feed_key = k
    where l.feed_key is null or (l.expires_at < now() and l.owner <> ${instance})
      or not exists (select 1 from ${priceRelayInstances} as i where i.instance = l.owner and i.seen_at > ${live})`,
  );
  return {
    owned: counts?.owned ?? [],
    unowned: unowned.map((u) => ({ key: u.key, orphaned: Boolean(u.orphaned) })),
    sharedOwned: counts?.shared ?? [],
    liveInstances: Number(counts?.live ?? 1),
    wanted: Number(counts?.wanted ?? keys.length),
  };
}

/** Takes the leases of `keys` that are free (none, expired, or held by an instance that stopped); answers those taken. */
export async function takeLeases(
  db: Executor,
  instance: string,
  keys: readonly string[],
  ttlMs: number,
  liveMs: number,
): Promise<string[]> {
  if (keys.length === 0) return [];
  const rows = await queryRows<{ feed_key: string }>(
    db,
    sql`
    insert into ${priceFeedLeases} (feed_key, owner, acquired_at, expires_at)
    select k, ${instance}, now(), now() + make_interval(secs => ${ttlMs / 1_000}::float8)
    from unnest(${sql.param([...keys])}::text[]) as k
    on conflict (feed_key) do update set owner = excluded.owner, acquired_at = now(), expires_at = excluded.expires_at
    where ${priceFeedLeases.expiresAt} < now() or ${priceFeedLeases.owner} = excluded.owner
      or not exists (select 1 from ${priceRelayInstances} as i
        where i.instance = ${priceFeedLeases.owner} and i.seen_at > now() - make_interval(secs => ${liveMs / 1_000}::float8))
    returning feed_key`,
  );
  return rows.map((r) => r.feed_key);
}

/**
 * Gives up this instance's leases of `keys`, the feeds still wanted here (a hand-over: another
 * instance that wants one takes it); without keys, every lease, its interest and its heartbeat (a stop).
 */
export async function releaseLeases(db: Executor, instance: string, keys?: readonly string[]): Promise<void> {
  if (keys) {
    if (keys.length > 0)
      await db.execute(
        sql`delete from ${priceFeedLeases} where owner = ${instance} and feed_key = any(${sql.param([...keys])}::text[])`,
      );
    return;
  }
  await db.execute(sql`
    with l as (delete from ${priceFeedLeases} where owner = ${instance}),
      i as (delete from ${priceFeedInterest} where instance = ${instance})
    delete from ${priceRelayInstances} where instance = ${instance}`);
}
