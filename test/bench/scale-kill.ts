import type { Clients } from './scale-clients.ts';
import { check, ticksOf } from './scale-figures.ts';
import { type Instance, killHard, metric } from './scale-instances.ts';
import { GRACE_MS, POLL_INTERVAL_MS, RECOVERY_S, SYMBOLS } from './scale-settings.ts';
import { now, type ScaleUpstream } from './scale-upstream.ts';
import { summarize } from './stats.ts';
import type { TcpProxy } from './tcp-proxy.ts';

/**
 * The scale benchmark's crash: the instance that owns the most feeds (`vigil_price_feeds_owned` on
 * its own /metrics; without that metric, the instance the proxy sent most connections to) is
 * killed with SIGKILL. Measured, against two poll intervals:
 * - takeover seen by the survivors: until their `vigil_price_feeds_owned` add up to every feed;
 * - takeover seen by the upstream: for each symbol only the victim was fetching just before the
 *   kill, until another instance fetched it (this can come up to a quote's cache age after the
 *   takeover: the new owner may first serve the quote the victim fetched, from the shared cache);
 * - the survivors' subscribers' latency after the kill (a gap in their ticks would show here);
 * - the victim's subscribers: how many saw their socket close, reconnected through the proxy (to a
 *   survivor) and then received a new price; the survivors' subscribers: versions lost,
 *   duplicated, out of order or invented while the feeds changed hands.
 */

interface Crash {
  readonly instances: readonly Instance[];
  readonly upstream: ScaleUpstream;
  readonly clients: Clients;
  readonly proxy: TcpProxy;
  readonly notes: string[];
}

export async function killOwner({ instances, upstream, clients, proxy, notes }: Crash) {
  const owned = await Promise.all(instances.map((i) => metric(i, 'vigil_price_feeds_owned')));
  const engine = owned.some((n) => n !== undefined);
  // With the relay off every instance owns its own feeds: the survivors own them all at once.
  const relayed = (await Promise.all(instances.map((i) => metric(i, 'vigil_price_relay_up')))).some(
    (n) => n === 1,
  );
  const pick = engine ? owned.map((n) => n ?? -1) : instances.map((i) => proxy.connections.get(i.port) ?? 0);
  const victim = instances[pick.indexOf(Math.max(...pick))]!;
  const survivors = instances.filter((i) => i !== victim);
  notes.push(
    engine
      ? `feeds owned before the kill: ${owned.join(' / ')}; killed ${victim.name}`
      : `vigil_price_feeds_owned is not exported (no feed coordinator): killed ${victim.name}, the one with the most connections`,
  );
  const killedAt = now();
  await killHard(victim);
  // Takeover as the survivors report it: every feed owned again.
  let ownedAgainMs = Number.NaN;
  const deadline = killedAt + RECOVERY_S * 1_000;
  while (engine && now() < deadline) {
    const counts = await Promise.all(survivors.map((i) => metric(i, 'vigil_price_feeds_owned')));
    if (counts.reduce<number>((s, n) => s + (n ?? 0), 0) >= SYMBOLS.length) {
      ownedAgainMs = now() - killedAt;
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const left = deadline - now();
  if (left > 0) await new Promise((resolve) => setTimeout(resolve, left));
  await new Promise((resolve) => setTimeout(resolve, GRACE_MS));
  const logs = await clients.collect();
  const takeover = upstreamTakeover(upstream, String(victim.port), killedAt);
  const killed = logs.filter((l) => l.closedAt.some((t) => t >= killedAt));
  const reconnected = killed.filter((l) => l.reconnectedAt.some((t) => t >= killedAt));
  const resumed = reconnected.filter((l) => {
    const back = l.reconnectedAt.find((t) => t >= killedAt)!;
    return ticksOf(l).some((t) => !t.snapshot && t.at > back);
  });
  const window = { from: killedAt, to: deadline, graceMs: GRACE_MS };
  const versions = (s: string) => upstream.versions.get(s) ?? [];
  const kept = check(logs, versions, window, (l) => !killed.includes(l));
  const moved = check(logs, versions, window, (l) => killed.includes(l));
  const back = summarize(reconnected.map((l) => l.reconnectedAt.find((t) => t >= killedAt)! - killedAt));
  const twoPolls = 2 * POLL_INTERVAL_MS;
  return [
    {
      measure: `every feed owned again (survivors /metrics)${engine && !relayed ? ', relay off: each polls its own' : ''}`,
      value: engine
        ? Number.isNaN(ownedAgainMs)
          ? `not within ${RECOVERY_S} s`
          : `${ownedAgainMs.toFixed(0)} ms`
        : 'metric absent',
      goal: `<= ${twoPolls} ms`,
    },
    {
      measure: 'symbols only the victim fetched before the kill; fetched again by another (upstream)',
      value: `${takeover.sole}; ${takeover.taken} taken, slowest ${takeover.slowestMs.toFixed(0)} ms`,
      goal: `<= ${twoPolls} ms`,
    },
    {
      measure: "victim's subscribers closed / reconnected / resumed",
      value: `${killed.length} / ${reconnected.length} / ${resumed.length}`,
      goal: 'all',
    },
    {
      measure: 'reconnected after the kill, p50 / max',
      value: `${back.p50.toFixed(0)} / ${back.max.toFixed(0)} ms`,
      goal: '',
    },
    {
      measure: "survivors' subscribers: lost / dup / out of order / invented",
      value: `${kept.lost} / ${kept.duplicated} / ${kept.outOfOrder} / ${kept.invented} (${kept.subscribers} subscribers)`,
      goal: '0 / 0 / 0 / 0',
    },
    {
      measure: 'moved subscribers after reconnecting: lost / dup / out of order / invented',
      value: `${moved.lost} / ${moved.duplicated} / ${moved.outOfOrder} / ${moved.invented}`,
      goal: '0 / 0 / 0 / 0',
    },
    {
      measure: 'change->client p99 / max after the kill (survivors)',
      value: `${summarize(kept.fromChangeMs).p99.toFixed(0)} / ${summarize(kept.fromChangeMs).max.toFixed(0)} ms`,
      goal: '',
    },
  ];
}

/**
 * For each symbol that, in the last two poll intervals and cache age before the kill, only the
 * victim fetched: how long after the kill another instance first fetched it.
 */
function upstreamTakeover(upstream: ScaleUpstream, victim: string, killedAt: number) {
  const before = killedAt - (2_000 + 2 * POLL_INTERVAL_MS);
  const callers = new Map<string, Set<string>>();
  const firstAfter = new Map<string, number>();
  for (const call of upstream.callLog) {
    if (call.at >= before && call.at < killedAt) {
      const set = callers.get(call.symbol) ?? new Set<string>();
      set.add(call.instance);
      callers.set(call.symbol, set);
    }
    if (call.at >= killedAt && call.instance !== victim && !firstAfter.has(call.symbol))
      firstAfter.set(call.symbol, call.at - killedAt);
  }
  const sole = [...callers].filter(([, set]) => set.size === 1 && set.has(victim)).map(([s]) => s);
  const taken = sole.filter((s) => firstAfter.has(s));
  return {
    sole: sole.length,
    taken: taken.length,
    slowestMs:
      sole.length === 0
        ? 0
        : taken.length < sole.length
          ? Number.POSITIVE_INFINITY
          : Math.max(...taken.map((s) => firstAfter.get(s)!)),
  };
}
