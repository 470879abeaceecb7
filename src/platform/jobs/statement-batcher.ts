/**
 * Many callers, one statement: each call adds an item, and the items that arrive together are
 * handed to `flush` at once. Jobs that end at the same moment complete in one statement; alert
 * delivery attempts that start or end together claim or record in one. On the embedded database
 * every statement waits for the one before it, and one statement for thirty items costs little more
 * than one for a single item.
 *
 * The first item leaves after `windowMs` (0: once the event loop has run the callbacks that were
 * ready with it, so answers that arrived in the same turn join it), or at once when `max` items
 * wait; items that come while a statement runs leave together after it. Should a shared statement
 * fail, each item is tried again on its own, so one bad item fails only its own caller.
 */
interface Waiting<I, O> {
  readonly item: I;
  readonly resolve: (out: O) => void;
  readonly reject: (error: unknown) => void;
}

export interface StatementBatcherOptions {
  /** Items in one statement at most. */
  readonly max?: number;
  /** How long the first item waits for company (ms). */
  readonly windowMs?: number;
}

export class StatementBatcher<I, O> {
  readonly #flush: (items: readonly I[]) => Promise<readonly O[]>;
  readonly #max: number;
  readonly #windowMs: number;
  #queue: Waiting<I, O>[] = [];
  #scheduled: ReturnType<typeof setTimeout> | ReturnType<typeof setImmediate> | undefined;
  #draining: Promise<void> | undefined;

  /** `flush` answers one output per item, in order. */
  constructor(flush: (items: readonly I[]) => Promise<readonly O[]>, options: StatementBatcherOptions = {}) {
    this.#flush = flush;
    this.#max = Math.max(1, options.max ?? 64);
    this.#windowMs = Math.max(0, options.windowMs ?? 0);
  }

  run(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.#queue.push({ item, resolve, reject });
      if (this.#draining) return;
      if (this.#queue.length >= this.#max) this.#drainNow();
      else if (!this.#scheduled) {
        const start = () => this.#drainNow();
        this.#scheduled = this.#windowMs > 0 ? setTimeout(start, this.#windowMs) : setImmediate(start);
      }
    });
  }

  /** Resolves once every item given so far has been flushed (or has failed). */
  async idle(): Promise<void> {
    while (this.#draining || this.#queue.length > 0) {
      if (!this.#draining) this.#drainNow();
      await this.#draining;
    }
  }

  #drainNow(): void {
    if (this.#draining) return;
    if (this.#scheduled) {
      clearTimeout(this.#scheduled as ReturnType<typeof setTimeout>);
      clearImmediate(this.#scheduled as ReturnType<typeof setImmediate>);
      this.#scheduled = undefined;
    }
    this.#draining = this.#drain().finally(() => {
      this.#draining = undefined;
      // Items given after the last statement began and before this point join none: they go now.
      if (this.#queue.length > 0) this.#drainNow();
    });
  }

  async #drain(): Promise<void> {
    while (this.#queue.length > 0) {
      const batch = this.#queue.splice(0, this.#max);
      try {
        const outs = await this.#flush(batch.map((b) => b.item));
        for (const [i, b] of batch.entries()) b.resolve(outs[i] as O);
      } catch (error) {
        if (batch.length === 1) batch[0]!.reject(error);
        else await Promise.all(batch.map((b) => this.#alone(b)));
      }
    }
  }

  async #alone(entry: Waiting<I, O>): Promise<void> {
    try {
      const [out] = await this.#flush([entry.item]);
      entry.resolve(out as O);
    } catch (error) {
      entry.reject(error);
    }
  }
}
