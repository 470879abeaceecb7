import { type Scheduler, systemClock, type TimerHandle } from '../../platform/clock.ts';
import type { Logger } from '../../platform/observability/logger.ts';
import { instrumentKey } from '../instruments.ts';
import type { LiveStream, MarketDataService } from '../market-data.service.ts';
import { type MarketState, marketStateAt } from '../market-state.ts';
import type { FeedCoordinator } from '../relay/feed-coordinator.ts';
import type { Instrument, Quote } from '../types.ts';
import type { ResolvedSymbol } from './streamable.ts';
import { fromQuote, fromStream, type PriceUpdate } from './tick-updates.ts';

/** One price update as subscribers see it. */
export interface PriceTick extends PriceUpdate {
  readonly instrument: Instrument;
  readonly symbol: string;
  /** Per-symbol sequence number: increases by one for every update the hub receives. */
  readonly seq: number;
  /** The instrument's market when the tick was sent (for a snapshot: when the subscriber joined). */
  readonly marketState: MarketState;
  /**
   * True for the first tick each subscriber gets: the last known price when it joined, which on a
   * closed market may be hours old (see asOf), rather than a new update.
   */
  readonly snapshot: boolean;
  /** How the subscriber's symbol was read (set per subscription by the streams, not by the hub). */
  readonly resolved?: ResolvedSymbol;
}

export interface PriceListener {
  tick(tick: PriceTick): void;
  /** The feed for this symbol is failing (nothing is sent in place of prices). */
  error?(error: Error): void;
}

export interface PriceHubOptions {
  /** How often a symbol without a streaming provider is polled (the cache absorbs faster polls). */
  readonly pollIntervalMs: number;
  /** How often a streamed symbol's reference quote (previous close, volume) is refreshed. */
  readonly referenceRefreshMs: number;
  /** Time and timers behind rate limits, polls and refreshes (tests pass a manual clock). */
  readonly clock: Scheduler;
  /**
   * Feeds shared with other instances (relay/feed-coordinator.ts): upstream runs here only for the
   * feeds this instance holds, the others are served from relayed ticks. None: every feed here.
   */
  readonly coordinator?: FeedCoordinator;
}

interface Subscriber {
  readonly listener: PriceListener;
  readonly intervalMs: number;
  lastSentAt: number;
  lastSentSeq: number;
  timer: TimerHandle | undefined;
}

interface Feed {
  readonly instrument: Instrument;
  readonly subscribers: Set<Subscriber>;
  last: PriceTick | undefined;
  reference: Quote | undefined;
  referenceProvider: string | undefined;
  /** The market state and the minute it was worked out for (sessions turn on whole minutes). */
  state: { readonly minute: number; readonly value: MarketState } | undefined;
  /** The snapshot newcomers get: one object while the price and the market state stay the same. */
  snapshot: PriceTick | undefined;
  /** Ends the feed (its last subscriber left). */
  stop: () => void;
  /** Stops polling or streaming upstream (while it runs here). */
  stopUpstream: () => void;
}

/**
 * One upstream feed per symbol, however many subscribers: a provider stream when one can stream
 * the instrument, else a poll of the (cached) quote. Subscribers that ask for an interval get at
 * most one update per interval (the latest price, never a backlog); the last one to leave stops
 * the upstream. Every subscriber first gets a snapshot of the last known price, even while its
 * market is shut and no stream ticks: a streamed feed publishes its reference quote until the
 * first trade arrives.
 */
export class PriceHub {
  readonly #feeds = new Map<string, Feed>();
  readonly #seq = new Map<string, number>();
  readonly #options: PriceHubOptions;

  constructor(
    private readonly marketData: MarketDataService,
    private readonly logger: Logger,
    options: Partial<PriceHubOptions> = {},
  ) {
    this.#options = { pollIntervalMs: 1_000, referenceRefreshMs: 30_000, clock: systemClock, ...options };
  }

  /** Starts (or joins) the feed for `instrument`; returns the function that leaves it. */
  subscribe(instrument: Instrument, listener: PriceListener, intervalMs = 0): () => void {
    const key = instrumentKey(instrument);
    let feed = this.#feeds.get(key);
    if (!feed) {
      feed = {
        instrument,
        subscribers: new Set(),
        last: undefined,
        reference: undefined,
        referenceProvider: undefined,
        state: undefined,
        snapshot: undefined,
        stop: () => {},
        stopUpstream: () => {},
      };
      this.#feeds.set(key, feed);
      this.#start(key, feed);
    }
    const sub: Subscriber = {
      listener,
      intervalMs: Math.max(0, intervalMs),
      lastSentAt: 0,
      lastSentSeq: 0,
      timer: undefined,
    };
    feed.subscribers.add(sub);
    // A newcomer gets the latest known price at once instead of waiting for the next update.
    if (feed.last) this.#send(sub, feed, feed.last, this.#options.clock.now());
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.#options.clock.clearTimeout(sub.timer);
      feed.subscribers.delete(sub);
      if (feed.subscribers.size === 0 && this.#feeds.get(key) === feed) {
        this.#feeds.delete(key);
        feed.stop();
      }
    };
  }

  stats() {
    let subscribers = 0;
    for (const feed of this.#feeds.values()) subscribers += feed.subscribers.size;
    return {
      feeds: this.#feeds.size,
      subscribers,
      symbols: [...this.#feeds.values()].map((f) => f.instrument.symbol),
    };
  }

  /** Stops every upstream (shutdown). */
  close(): void {
    for (const feed of this.#feeds.values()) {
      for (const sub of feed.subscribers) this.#options.clock.clearTimeout(sub.timer);
      feed.stop();
    }
    this.#feeds.clear();
  }

  #start(key: string, feed: Feed): void {
    const coordinator = this.#options.coordinator;
    if (!coordinator) {
      this.#startUpstream(key, feed);
      feed.stop = () => feed.stopUpstream();
      return;
    }
    feed.stop = coordinator.join(key, feed.instrument, {
      startUpstream: () => {
        this.#startUpstream(key, feed);
        return () => {
          feed.stopUpstream();
          feed.stopUpstream = () => {};
        };
      },
      relayed: (update) => this.#relayed(key, feed, update),
      latest: () => feed.last,
    });
  }

  /**
   * An update relayed from the feed's owner: published like one from upstream, unless it is not
   * newer than the feed's last (a late or repeated message), so prices never go back in time.
   */
  #relayed(key: string, feed: Feed, update: PriceUpdate): void {
    const last = feed.last;
    if (last && update.asOf.getTime() < last.asOf.getTime()) return;
    if (last && update.asOf.getTime() === last.asOf.getTime() && update.price === last.price) return;
    this.#publish(key, feed, update, true);
  }

  /**
   * Polls or streams the feed upstream: the server's own work, whichever subscriber's operation
   * started it (its first poll is not charged to that client's budget).
   */
  #startUpstream(key: string, feed: Feed): void {
    this.marketData.outsideOperation(() => {
      const stream = this.marketData.liveStream(feed.instrument);
      if (stream) this.#startStream(key, feed, stream);
      else this.#startPolling(key, feed);
    });
  }

  #startStream(key: string, feed: Feed, stream: LiveStream): void {
    const { provider: providerId, live } = stream;
    let stopped = false;
    const refresh = () =>
      this.marketData.quote(feed.instrument).then(
        (q) => {
          feed.reference = q.value;
          feed.referenceProvider = q.lineage.used[0];
          // Until the stream trades (a shut market never does) the quote is the last known price.
          if (!stopped && !feed.last) this.#publish(key, feed, fromQuote(q.value, q.lineage));
        },
        (error: unknown) =>
          this.logger.debug({ err: error, symbol: feed.instrument.symbol }, 'reference quote failed'),
      );
    void refresh();
    const stopRefreshing = this.#every(refresh, this.#options.referenceRefreshMs);
    const unsubscribe = stream.open({
      onTick: (tick) => {
        if (!stopped)
          this.#publish(key, feed, fromStream(feed.reference, feed.instrument, tick, providerId, live));
      },
      onError: (error) => {
        if (stopped) return;
        this.logger.warn(
          { err: error, symbol: feed.instrument.symbol, provider: providerId },
          'price stream failed; polling instead',
        );
        for (const sub of feed.subscribers) sub.listener.error?.(error);
        stopRefreshing();
        unsubscribe();
        this.#startPolling(key, feed);
      },
    });
    feed.stopUpstream = () => {
      stopped = true;
      stopRefreshing();
      unsubscribe();
    };
  }

  #startPolling(key: string, feed: Feed): void {
    let stopped = false;
    const { clock } = this.#options;
    let timer: TimerHandle | undefined;
    let failures = 0;
    const poll = async () => {
      try {
        const { value: quote, lineage } = await this.marketData.quote(feed.instrument);
        failures = 0;
        if (stopped) return;
        const last = feed.last;
        if (!last || last.price !== quote.price || last.asOf.getTime() !== quote.asOf.getTime()) {
          this.#publish(key, feed, fromQuote(quote, lineage));
        }
      } catch (error) {
        failures++;
        if (!stopped && failures === 1) {
          for (const sub of feed.subscribers) sub.listener.error?.(error as Error);
        }
        this.logger.debug({ err: error, symbol: feed.instrument.symbol }, 'price poll failed');
      }
      if (!stopped) {
        // Back off while the providers fail (up to 30 s), so a dead upstream is not hammered.
        const wait = Math.min(30_000, this.#options.pollIntervalMs * 2 ** Math.min(failures, 5));
        timer = clock.setTimeout(poll, wait);
      }
    };
    void poll();
    feed.stopUpstream = () => {
      stopped = true;
      clock.clearTimeout(timer);
    };
  }

  #publish(key: string, feed: Feed, update: PriceUpdate, relayed = false): void {
    if (!relayed) this.#options.coordinator?.published(key, update);
    const seq = (this.#seq.get(key) ?? 0) + 1;
    this.#seq.set(key, seq);
    // One clock reading for the whole fan-out: every subscriber is offered the tick at this time.
    const now = this.#options.clock.now();
    const tick: PriceTick = {
      instrument: feed.instrument,
      symbol: feed.instrument.symbol,
      seq,
      ...update,
      marketState: this.#stateOf(feed, now),
      snapshot: false,
    };
    feed.last = tick;
    for (const sub of feed.subscribers) this.#offer(sub, feed, now);
  }

  /** Sends now if the subscriber's interval allows, else once, at the end of its interval. */
  #offer(sub: Subscriber, feed: Feed, now: Date): void {
    if (sub.timer !== undefined) return;
    const wait = sub.lastSentAt + sub.intervalMs - now.getTime();
    if (wait <= 0) {
      this.#send(sub, feed, feed.last!, now);
      return;
    }
    const { clock } = this.#options;
    sub.timer = clock.setTimeout(() => {
      sub.timer = undefined;
      if (feed.last && feed.last.seq > sub.lastSentSeq && feed.subscribers.has(sub))
        this.#send(sub, feed, feed.last, clock.now());
    }, wait);
  }

  /** Calls `fn` every `ms` until the returned function is called (an interval on the hub's clock). */
  #every(fn: () => void, ms: number): () => void {
    const { clock } = this.#options;
    let timer: TimerHandle;
    const beat = () => {
      timer = clock.setTimeout(beat, ms);
      fn();
    };
    timer = clock.setTimeout(beat, ms);
    return () => clock.clearTimeout(timer);
  }

  /** The feed's market state at `at`, worked out once a minute rather than once a tick. */
  #stateOf(feed: Feed, at: Date): MarketState {
    const minute = Math.floor(at.getTime() / 60_000);
    if (feed.state?.minute !== minute) feed.state = { minute, value: marketStateAt(feed.instrument, at) };
    return feed.state.value;
  }

  /**
   * The tick as a snapshot. Subscribers that join while the price and the market state stay the
   * same get the same object, so a subscription that resolves events once for all (see
   * `sharedResults`) resolves it once for all of them too.
   */
  #snapshotOf(feed: Feed, tick: PriceTick, now: Date): PriceTick {
    const marketState = this.#stateOf(feed, now);
    const last = feed.snapshot;
    if (last && last.seq === tick.seq && last.marketState === marketState && last.symbol === tick.symbol)
      return last;
    feed.snapshot = { ...tick, snapshot: true, marketState };
    return feed.snapshot;
  }

  #send(sub: Subscriber, feed: Feed, tick: PriceTick, now: Date): void {
    // Sequence numbers start at 1: nothing sent yet means this is the subscriber's snapshot.
    const first = sub.lastSentSeq === 0;
    sub.lastSentAt = now.getTime();
    sub.lastSentSeq = tick.seq;
    try {
      sub.listener.tick(first ? this.#snapshotOf(feed, tick, now) : tick);
    } catch (error) {
      this.logger.error({ err: error, symbol: tick.symbol }, 'price listener threw');
    }
  }
}
