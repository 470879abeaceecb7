import { type SubscriberLog, TICK_FIELDS } from './scale-clients.ts';
import type { PriceVersion } from './scale-upstream.ts';

/**
 * What the scale benchmark works out from its subscribers' logs and the upstream's versions (pure,
 * so that the rules are in one place):
 * - latency of each delivered update, from the upstream's change of price and from the first time
 *   an instance fetched that price, to the client's receipt;
 * - lost: a version the upstream made while the subscriber was subscribed (connected and past its
 *   snapshot, until `graceMs` before its connection closed) that it never received;
 * - duplicated: a version received again as an update on one connection;
 * - out of order: an update whose seq is not above the previous one on its connection, or whose
 *   price is older than one the subscriber already had;
 * - invented: a price the upstream never made for that symbol.
 */
export interface Checked {
  readonly subscribers: number;
  readonly deliveries: number;
  readonly fromChangeMs: number[];
  readonly fromFetchMs: number[];
  readonly lost: number;
  /** Subscribers that lost at least one version. */
  readonly subscribersLosing: number;
  readonly duplicated: number;
  readonly outOfOrder: number;
  readonly invented: number;
}

export interface Tick {
  readonly price: number;
  readonly seq: number;
  readonly at: number;
  readonly snapshot: boolean;
  readonly connection: number;
}

export function ticksOf(log: SubscriberLog): Tick[] {
  const ticks: Tick[] = [];
  for (let i = 0; i < log.ticks.length; i += TICK_FIELDS) {
    const [price, seq, at, snapshot, connection] = log.ticks.slice(i, i + TICK_FIELDS) as number[];
    ticks.push({ price: price!, seq: seq!, at: at!, snapshot: snapshot === 1, connection: connection! });
  }
  return ticks;
}

/** When each connection of the subscriber was subscribed: from its snapshot to its close (or Infinity). */
export function periodsOf(log: SubscriberLog): Array<{ from: number; to: number }> {
  const starts = [log.readyAt, ...log.reconnectedAt].filter((t) => Number.isFinite(t));
  return starts.map((from) => ({
    from,
    // A close belongs to the connection open before it.
    to: log.closedAt.find((closed) => closed >= from) ?? Number.POSITIVE_INFINITY,
  }));
}

/**
 * Checks `logs` over the versions made in [from, to]; `versions(symbol)` lists the upstream's.
 * Subscribers left out by `include` are not counted.
 */
export function check(
  logs: readonly SubscriberLog[],
  versions: (symbol: string) => readonly PriceVersion[],
  window: { readonly from: number; readonly to: number; readonly graceMs: number },
  include: (log: SubscriberLog) => boolean = () => true,
): Checked {
  const result = {
    subscribers: 0,
    deliveries: 0,
    fromChangeMs: [] as number[],
    fromFetchMs: [] as number[],
    lost: 0,
    subscribersLosing: 0,
    duplicated: 0,
    outOfOrder: 0,
    invented: 0,
  };
  for (const log of logs) {
    if (!include(log)) continue;
    result.subscribers++;
    const made = versions(log.symbol);
    const byPrice = new Map(made.map((v) => [v.price, v]));
    const ticks = ticksOf(log);
    const received = new Set<number>();
    const seenOnConnection = new Map<number, { seq: number; prices: Set<number> }>();
    let newest = Number.NEGATIVE_INFINITY;
    for (const tick of ticks) {
      const version = byPrice.get(tick.price);
      if (!version) {
        result.invented++;
        continue;
      }
      received.add(tick.price);
      const seen = seenOnConnection.get(tick.connection) ?? { seq: 0, prices: new Set<number>() };
      seenOnConnection.set(tick.connection, seen);
      if (!tick.snapshot) {
        if (seen.prices.has(tick.price)) result.duplicated++;
        else if (tick.seq <= seen.seq || tick.price < newest) result.outOfOrder++;
        if (version.changedAt >= window.from && version.changedAt <= window.to) {
          result.deliveries++;
          result.fromChangeMs.push(tick.at - version.changedAt);
          if (version.firstServedAt !== undefined) result.fromFetchMs.push(tick.at - version.firstServedAt);
        }
      }
      seen.prices.add(tick.price);
      seen.seq = Math.max(seen.seq, tick.seq);
      newest = Math.max(newest, tick.price);
    }
    let lost = 0;
    for (const period of periodsOf(log)) {
      const from = Math.max(window.from, period.from);
      const to = Math.min(window.to, period.to - window.graceMs);
      for (const v of made) if (v.changedAt >= from && v.changedAt <= to && !received.has(v.price)) lost++;
    }
    result.lost += lost;
    if (lost > 0) result.subscribersLosing++;
  }
  return result;
}
