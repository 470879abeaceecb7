/**
 * A live feed as an async iterator that can also push (GraphQL subscriptions, see
 * graphql/direct-delivery.ts): items wait in a bounded queue for a reader that pulls them with
 * `next`, and a consumer that attaches with `offerTo` is handed them as they come instead, while
 * the reader holds none, so the fan-out of one event to many subscribers needs no promise chain per
 * subscriber per event. What the queue keeps for a reader that falls behind, and what it gives up
 * when full, is its policy (`DropOldest`, `LatestByKey`); the iterator's own memory is constant.
 */

/** Where a push iterator keeps what its reader has not taken yet: bounded by its policy. */
export interface PushQueue<T> {
  readonly size: number;
  /** Adds an item at the back (dropping or merging as the policy says). */
  add(item: T): void;
  /** The item at the front, without taking it. */
  peek(): T | undefined;
  /** Takes the item at the front. */
  shift(): T | undefined;
  clear(): void;
}

/** A consumer of pushed items: returns whether it took the item (a throw declines it). */
export type Offer<T> = (item: T) => boolean;

/** Runs `offerAll`, which offers several items back to back, so a transport can send them in one write. */
export type OfferBatch = (offerAll: () => void) => void;

export class PushIterator<T> implements AsyncIterableIterator<T> {
  readonly #queue: PushQueue<T>;
  readonly #stop: () => void;
  #wake: (() => void) | undefined;
  #done = false;
  #offer: Offer<T> | undefined;
  /** The reader has an item from `next` in hand (until it calls `next` again). */
  #reading = false;

  /**
   * `start` starts the feed, which hands each item to `push`, and returns the function that stops
   * it; it is called at once (a feed may push during it), and the stop once, when the iterator ends.
   */
  constructor(queue: PushQueue<T>, start: (push: (item: T) => void) => () => void) {
    this.#queue = queue;
    this.#stop = start((item) => this.push(item));
  }

  /** Whether the reader returned (or threw): the feed is stopped and nothing more is taken. */
  get ended(): boolean {
    return this.#done;
  }

  /** An item from the feed: offered to the consumer when nothing waits before it, else queued. */
  push(item: T): void {
    if (this.#done) return;
    if (this.#offer !== undefined && !this.#reading && this.#queue.size === 0 && this.#offered(item)) return;
    this.#queue.add(item);
    this.#wake?.();
  }

  /** The queue was changed other than by `push` (items put before the others): a waiting reader looks again. */
  queueChanged(): void {
    if (this.#queue.size > 0) this.#wake?.();
  }

  /**
   * From now on, an item is first offered to `offer` when none is queued and the reader is not
   * handling one it read (it waits in `next`, or has not read yet). Items queued before, while the
   * reader has not read any, are offered at once, in order. One `offer` declines (returns false or
   * throws) stays queued for the iterator, and so does every item after it until the reader has
   * taken them all and asks again: the order of items never changes. The items queued before are
   * offered inside `batch` (so that a transport can send them in one write).
   */
  offerTo(offer: Offer<T>, batch?: OfferBatch): void {
    this.#offer = offer;
    if (this.#reading || this.#queue.size === 0) return;
    const offerQueued = () => {
      while (this.#queue.size > 0 && this.#offered(this.#queue.peek()!)) this.#queue.shift();
    };
    if (batch) batch(offerQueued);
    else offerQueued();
  }

  async next(): Promise<IteratorResult<T, undefined>> {
    this.#reading = false;
    while (!this.#done && this.#queue.size === 0) {
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
      this.#wake = undefined;
    }
    if (this.#done) return { done: true, value: undefined };
    const item = this.#queue.shift() as T;
    this.#reading = true;
    return { done: false, value: item };
  }

  async return(): Promise<IteratorResult<T, undefined>> {
    this.#finish();
    return { done: true, value: undefined };
  }

  async throw(error?: unknown): Promise<IteratorResult<T, undefined>> {
    this.#finish();
    throw error;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  #offered(item: T): boolean {
    try {
      return this.#offer!(item);
    } catch {
      return false;
    }
  }

  #finish(): void {
    if (this.#done) return;
    this.#done = true;
    this.#stop();
    this.#queue.clear();
    this.#wake?.();
  }
}

/**
 * First in, first out, at most `limit` items: a reader that falls further behind loses the oldest.
 * `limit` may be raised (to make room for items put in with `replaceWith`).
 */
export class DropOldest<T> implements PushQueue<T> {
  #items: T[] = [];

  constructor(public limit: number) {}

  get size(): number {
    return this.#items.length;
  }

  add(item: T): void {
    if (this.#items.length >= this.limit) this.#items.shift();
    this.#items.push(item);
  }

  peek(): T | undefined {
    return this.#items[0];
  }

  shift(): T | undefined {
    return this.#items.shift();
  }

  clear(): void {
    this.#items.length = 0;
  }

  /** Takes every queued item, oldest first. */
  drain(): T[] {
    return this.#items.splice(0);
  }

  /** Puts `items` (oldest first) in place of what is queued, whatever the limit. */
  replaceWith(items: readonly T[]): void {
    this.#items = [...items];
  }
}

/**
 * The latest item per key: a reader that falls behind never builds a backlog, it gets the newest
 * item of each key, keys in the order their latest item came (memory is bounded by the keys). An
 * item that replaces a queued one is `merge`d with it (by default the new item wins).
 */
export class LatestByKey<T> implements PushQueue<T> {
  readonly #items = new Map<string, T>();

  constructor(
    private readonly keyOf: (item: T) => string,
    private readonly merge: (queued: T, next: T) => T = (_queued, next) => next,
  ) {}

  get size(): number {
    return this.#items.size;
  }

  add(item: T): void {
    const key = this.keyOf(item);
    const queued = this.#items.get(key);
    // Re-inserting moves the key to the back: keys are served in the order of their latest item.
    this.#items.delete(key);
    this.#items.set(key, queued === undefined ? item : this.merge(queued, item));
  }

  peek(): T | undefined {
    return this.#items.values().next().value;
  }

  shift(): T | undefined {
    const first = this.#items.entries().next();
    if (first.done) return undefined;
    this.#items.delete(first.value[0]);
    return first.value[1];
  }

  clear(): void {
    this.#items.clear();
  }
}
