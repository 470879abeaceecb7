/**
 * Price feeds shared by the instances on one Postgres database. For each feed wanted anywhere, one
 * instance holds its lease (feed-leases.repository.ts) and polls or streams it upstream; it relays
 * every update through NOTIFY (relay-wire.ts) and the other instances serve their subscribers
 * from the relayed ticks. Every quarter of a poll interval each instance states what it wants,
 * renews its leases (a lease lives one poll interval) and takes the free ones it wants within its
 * fair share (feed-share.rules.ts); a feed whose owner died is taken at once by an instance that
 * wants it, so it has an owner again within about 1.3 poll intervals (two at most). A follower's new subscriber gets the owner's
 * latest update as its snapshot (asked over the relay).
 *
 * When the database or the relay fails, each instance polls its own feeds (the relay is
 * `degraded`; said once in the log) until a round succeeds again. A single instance on the embedded
 * database has no coordinator: its hub polls as it always did.
 */
import { type Scheduler, systemClock, type TimerHandle } from '../../platform/clock.ts';
import { type DatabaseHandle, notify } from '../../platform/db/database.ts';
import type { Logger } from '../../platform/observability/logger.ts';
import type { PriceUpdate } from '../hub/tick-updates.ts';
import type { Instrument } from '../types.ts';
import { leaseRound, releaseLeases, takeLeases } from './feed-leases.repository.ts';
import { feedsToTake, feedToHandOver } from './feed-share.rules.ts';
import { decodeRelay, encodeRelay, type RelayedUpdate } from './relay-wire.ts';

export const RELAY_CHANNEL = 'vigil_price_ticks';

/** What the hub gives the coordinator for one of its feeds. */
export interface FeedHandle {
  /** Starts polling or streaming upstream; answers the function that stops it. */
  startUpstream(): () => void;
  /** An update relayed by the feed's owner. */
  relayed(update: PriceUpdate): void;
  /** The feed's latest update, for another instance's snapshot; undefined when none yet. */
  latest(): PriceUpdate | undefined;
}

export type RelayMode = 'relayed' | 'degraded';

export interface RelayStats {
  readonly mode: RelayMode;
  readonly instanceId: string;
  readonly owned: number;
  readonly followed: number;
  readonly sent: number;
  readonly received: number;
  /** Recent relay lag (an exponential average over received updates), ms; null before any. */
  readonly lagMs: number | null;
}

export interface RelayObserver {
  lag(seconds: number): void;
  relayed(direction: 'sent' | 'received', count: number): void;
}

export interface FeedCoordinatorOptions {
  readonly database: DatabaseHandle;
  readonly instanceId: string;
  readonly pollIntervalMs: number;
  /**
   * Timers of the rounds and the relay's batching: the system's by default, whatever clock the app
   * runs on. Leases expire in database time, which a test's manual clock does not move.
   */
  readonly clock?: Scheduler;
  readonly logger: Logger;
  readonly observer?: RelayObserver;
}

interface LocalFeed {
  readonly key: string;
  readonly instrument: Instrument;
  readonly handle: FeedHandle;
  /** Running upstream here: its stop. */
  stopUpstream: (() => void) | undefined;
}

export class FeedCoordinator {
  readonly #o: FeedCoordinatorOptions;
  readonly #feeds = new Map<string, LocalFeed>();
  /** Feeds whose lease this instance holds. */
  #owned = new Set<string>();
  #mode: RelayMode = 'relayed';
  #timer: TimerHandle | undefined;
  #round: Promise<void> | undefined;
  #again = false;
  #stopped = true;
  #unlisten: (() => Promise<void>) | undefined;
  #outbox: RelayedUpdate[] = [];
  #wantedOut = new Set<string>();
  #flushing: TimerHandle | undefined;
  #sent = 0;
  #received = 0;
  /** The feed handed over at the last round (not taken back at once). */
  readonly #handedOver = new Set<string>();
  #lagMs: number | null = null;
  /** Live instances at the last round (1 until one has run: alone until known otherwise). */
  #liveInstances = 1;
  /** Wanted feeds no instance took at the last round. */
  #late = new Set<string>();

  readonly #clock: Scheduler;

  constructor(options: FeedCoordinatorOptions) {
    this.#o = options;
    this.#clock = options.clock ?? systemClock;
  }

  /** A lease's life: one poll interval, renewed every quarter of one (so three renewals may be late). */
  get #ttlMs(): number {
    return this.#o.pollIntervalMs;
  }

  /** Listens to the relay and starts the rounds. */
  async start(): Promise<void> {
    this.#stopped = false;
    try {
      this.#unlisten = await this.#o.database.listen(
        RELAY_CHANNEL,
        (payload) => this.#heard(payload),
        // Listening again after a lost connection: what was sent meanwhile is lost; ask again.
        () => this.#askLatest([...this.#feeds.keys()].filter((k) => !this.#owned.has(k))),
      );
    } catch (error) {
      this.#degrade(error);
    }
    this.#schedule(0);
  }

  /** Gives up every lease (others take the feeds at once) and stops listening. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#clock.clearTimeout(this.#timer);
    this.#clock.clearTimeout(this.#flushing);
    await this.#round?.catch(() => undefined);
    for (const feed of this.#feeds.values()) this.#stopUpstream(feed);
    await releaseLeases(this.#o.database.db, this.#o.instanceId).catch(() => undefined);
    await this.#unlisten?.().catch(() => undefined);
  }

  /** The hub has subscribers of `key`: the feed is served, from upstream or from the relay. */
  join(key: string, instrument: Instrument, handle: FeedHandle): () => void {
    const feed: LocalFeed = { key, instrument, handle, stopUpstream: undefined };
    this.#feeds.set(key, feed);
    // Alone (as far as the last round knew), or not relaying: upstream at once, as a single
    // instance always did; the next round takes the lease (or stops it, if another holds it).
    if (this.#mode === 'degraded' || this.#stopped || this.#liveInstances <= 1) this.#startUpstream(feed);
    else this.#askLatest([key]);
    this.#schedule(0);
    return () => {
      if (this.#feeds.get(key) !== feed) return;
      this.#feeds.delete(key);
      this.#stopUpstream(feed);
      // Given up at the round this schedules (rounds run one at a time, so a feed joined again
      // meanwhile is not given up): an instance that still wants it takes it at its next round.
      if (this.#owned.delete(key)) this.#schedule(0);
    };
  }

  /** An update this instance got upstream: relayed to the others. */
  published(key: string, update: PriceUpdate): void {
    if (this.#mode !== 'relayed' || !this.#owned.has(key)) return;
    this.#outbox.push({ key, update, sentAt: Date.now() });
    this.#flushSoon();
  }

  stats(): RelayStats {
    let owned = 0;
    for (const feed of this.#feeds.values()) if (feed.stopUpstream) owned++;
    return {
      mode: this.#mode,
      instanceId: this.#o.instanceId,
      owned,
      followed: this.#feeds.size - owned,
      sent: this.#sent,
      received: this.#received,
      lagMs: this.#lagMs === null ? null : Math.round(this.#lagMs * 10) / 10,
    };
  }

  /** A round now (`delay` 0) or at the next beat; rounds never overlap. */
  #schedule(delay: number): void {
    if (this.#stopped) return;
    if (this.#round) {
      if (delay === 0) this.#again = true;
      return;
    }
    this.#clock.clearTimeout(this.#timer);
    this.#timer = this.#clock.setTimeout(() => {
      this.#round = this.#runRound().finally(() => {
        this.#round = undefined;
        const again = this.#again;
        this.#again = false;
        this.#schedule(again ? 0 : Math.round(this.#o.pollIntervalMs / 4));
      });
    }, delay);
  }

  async #runRound(): Promise<void> {
    const { database, instanceId } = this.#o;
    const wanted = [...this.#feeds.values()].map((f) => ({ key: f.key, instrument: { ...f.instrument } }));
    try {
      const state = await leaseRound(database.db, instanceId, wanted, this.#ttlMs, this.#ttlMs);
      // Orphaned (its owner stopped) or left unowned for a whole round: taken whatever the share.
      const unowned = state.unowned.map((u) => ({
        key: u.key,
        unownedForMs: u.orphaned || this.#late.has(u.key) ? Number.POSITIVE_INFINITY : 0,
      }));
      const take = feedsToTake({
        instance: instanceId,
        unowned,
        owned: state.owned.length,
        wanted: state.wanted,
        liveInstances: state.liveInstances,
        graceMs: this.#o.pollIntervalMs / 4,
      });
      const taken = await takeLeases(
        database.db,
        instanceId,
        take.filter(
          (k) => !this.#handedOver.has(k) || unowned.some((u) => u.key === k && u.unownedForMs > 0),
        ),
        this.#ttlMs,
        this.#ttlMs,
      );
      // Over its fair share (it was alone when the feeds were taken): one feed goes to another
      // instance that wants it, which takes it at its next round.
      const handOver = feedToHandOver({
        instance: instanceId,
        owned: state.owned.length + taken.length,
        wanted: state.wanted,
        liveInstances: state.liveInstances,
        sharedOwned: state.sharedOwned,
      });
      this.#handedOver.clear();
      if (handOver) {
        await releaseLeases(database.db, instanceId, [handOver]);
        this.#handedOver.add(handOver);
      }
      this.#late = new Set(unowned.filter((u) => !taken.includes(u.key)).map((u) => u.key));
      this.#owned = new Set([...state.owned, ...taken].filter((k) => !this.#handedOver.has(k)));
      this.#liveInstances = state.liveInstances;
      if (this.#mode === 'degraded') {
        this.#mode = 'relayed';
        this.#o.logger.info('price relay back: feeds are shared between instances again');
      }
      this.#reconcile(new Set(wanted.map((w) => w.key)));
    } catch (error) {
      this.#degrade(error);
    }
  }

  /**
   * Upstream runs here for the feeds this instance holds, and only for them. Only the feeds the
   * round asked about (`asked`) are settled: one joined while the round ran may have started
   * upstream already, and the next round (scheduled by its join) settles it.
   */
  #reconcile(asked: ReadonlySet<string>): void {
    for (const feed of this.#feeds.values()) {
      if (!asked.has(feed.key)) continue;
      const own = this.#owned.has(feed.key);
      if (own && !feed.stopUpstream) this.#startUpstream(feed);
      else if (!own && feed.stopUpstream) this.#stopUpstream(feed);
    }
  }

  #degrade(error: unknown): void {
    if (this.#mode !== 'degraded') {
      this.#mode = 'degraded';
      this.#o.logger.warn(
        { err: error },
        'price relay unavailable: this instance polls its own feeds until the database answers again',
      );
    }
    for (const feed of this.#feeds.values()) if (!feed.stopUpstream) this.#startUpstream(feed);
  }

  #startUpstream(feed: LocalFeed): void {
    if (!feed.stopUpstream) feed.stopUpstream = feed.handle.startUpstream();
  }

  #stopUpstream(feed: LocalFeed): void {
    feed.stopUpstream?.();
    feed.stopUpstream = undefined;
  }

  #askLatest(keys: readonly string[]): void {
    for (const key of keys) this.#wantedOut.add(key);
    if (keys.length > 0) this.#flushSoon();
  }

  /** Sends what waits in the outbox at the next turn (updates published in one turn go in one NOTIFY). */
  #flushSoon(): void {
    if (this.#flushing !== undefined) return;
    this.#flushing = this.#clock.setTimeout(() => {
      this.#flushing = undefined;
      const updates = this.#outbox;
      const wanted = [...this.#wantedOut];
      this.#outbox = [];
      this.#wantedOut.clear();
      void this.#send(updates, wanted);
    }, 0);
  }

  async #send(updates: readonly RelayedUpdate[], wanted: readonly string[]): Promise<void> {
    try {
      for (const payload of encodeRelay(this.#o.instanceId, updates, wanted)) {
        await notify(this.#o.database.db, RELAY_CHANNEL, payload);
      }
      this.#sent += updates.length;
      if (updates.length > 0) this.#o.observer?.relayed('sent', updates.length);
    } catch (error) {
      this.#degrade(error);
    }
  }

  #heard(payload: string): void {
    const message = decodeRelay(payload);
    if (!message || message.from === this.#o.instanceId) return;
    const now = Date.now();
    let received = 0;
    for (const { key, update, sentAt } of message.updates) {
      const feed = this.#feeds.get(key);
      // Followed here: the owner's update. (Owned here: another instance's late word, ignored.)
      if (!feed || feed.stopUpstream) continue;
      received++;
      const lag = Math.max(0, now - sentAt);
      this.#lagMs = this.#lagMs === null ? lag : this.#lagMs * 0.9 + lag * 0.1;
      this.#o.observer?.lag(lag / 1_000);
      feed.handle.relayed(update);
    }
    this.#received += received;
    if (received > 0) this.#o.observer?.relayed('received', received);
    // Another instance's new subscribers need a snapshot of feeds this instance holds.
    for (const key of message.wanted) {
      const feed = this.#feeds.get(key);
      const latest = feed?.stopUpstream && this.#owned.has(key) ? feed.handle.latest() : undefined;
      if (latest) {
        this.#outbox.push({ key, update: latest, sentAt: now });
        this.#flushSoon();
      }
    }
  }
}
