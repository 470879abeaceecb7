import { type Identity, Store, useRateLimiter } from '@envelop/rate-limiter';
import { type DocumentNode, type ExecutionResult, Kind } from 'graphql';
import { createGraphQLError, type Plugin } from 'graphql-yoga';
import type { BaseContext } from './base-context.ts';

export interface RateLimitOptions {
  /** Calls allowed per client, per root field, per window. */
  readonly max: number;
  readonly windowSeconds: number;
}

/**
 * Sliding-window call log per (client, field). Unlike the plugin's default store it forgets
 * idle clients (memory stays bounded by active clients) and can say when the next call is allowed.
 */
export class SlidingWindowStore extends Store {
  readonly #log = new Map<string, number[]>();
  #sweepAt = 0;
  /** The calls being recorded for one operation: each key's log before the operation touched it. */
  #recording: Map<string, readonly number[]> | undefined;

  override getForIdentity(identity: Identity): readonly number[] {
    return this.#log.get(key(identity)) ?? [];
  }

  override setForIdentity(identity: Identity, timestamps: readonly number[], windowMs?: number): void {
    const now = Date.now();
    const k = key(identity);
    if (this.#recording && !this.#recording.has(k)) this.#recording.set(k, this.#log.get(k) ?? []);
    if (timestamps.length === 0) this.#log.delete(k);
    else this.#log.set(k, [...timestamps]);
    if (windowMs && now >= this.#sweepAt) {
      this.#sweepAt = now + windowMs;
      for (const [k, ts] of this.#log) if ((ts.at(-1) ?? 0) + windowMs <= now) this.#log.delete(k);
    }
  }

  /** Whole seconds until one more call fits under `max` in the window (at least 1). */
  retryAfterSeconds(identity: Identity, max: number, windowMs: number): number {
    const now = Date.now();
    const live = this.getForIdentity(identity).filter((t) => t + windowMs > now);
    const freeing = live[Math.max(0, live.length - max)] ?? now;
    return Math.max(1, Math.ceil((freeing + windowMs - now) / 1000));
  }

  /**
   * Runs `count` (synchronous: this store never awaits) and returns the calls it added, so they can
   * be given back if the operation is refused after all. When `count` throws, they are given back
   * at once and the error goes on.
   */
  record(count: () => void): Receipt {
    const before = new Map<string, readonly number[]>();
    this.#recording = before;
    let failure: { error: unknown } | undefined;
    try {
      count();
    } catch (error) {
      failure = { error };
    } finally {
      this.#recording = undefined;
    }
    const added = new Map<string, number[]>();
    for (const [k, old] of before) {
      const fresh = difference(this.#log.get(k) ?? [], old);
      if (fresh.length > 0) added.set(k, fresh);
    }
    if (failure) {
      this.refund(added);
      throw failure.error;
    }
    return added;
  }

  /** Gives back the calls a receipt holds (those still in the window). */
  refund(receipt: Receipt): void {
    for (const [k, calls] of receipt) {
      const log = this.#log.get(k);
      if (!log) continue;
      const left = difference(log, calls);
      if (left.length === 0) this.#log.delete(k);
      else this.#log.set(k, left);
    }
  }
}

/** Calls one operation added, by (client, field) key. */
export type Receipt = ReadonlyMap<string, readonly number[]>;

/** `from` less one occurrence of each element of `remove` (multisets of timestamps). */
function difference(from: readonly number[], remove: readonly number[]): number[] {
  const pending = new Map<number, number>();
  for (const t of remove) pending.set(t, (pending.get(t) ?? 0) + 1);
  return from.filter((t) => {
    const n = pending.get(t) ?? 0;
    if (n === 0) return true;
    pending.set(t, n - 1);
    return false;
  });
}

const key = (identity: Identity) => `${identity.contextIdentity}\u0000${identity.fieldIdentity}`;

/**
 * Every Query and Mutation root field (introspection excepted) is limited per client (see
 * `Viewer.clientId`). Over HTTP the answer is a 429 with a numeric Retry-After; over graphql-ws the
 * same error arrives in the operation result with `extensions.code = RATE_LIMITED`.
 *
 * An operation that is refused spends nothing: when one of its fields is over the limit, the calls
 * its other fields counted are given back, and so are they when it fails before running (its
 * variables do not fit the document, for instance: a result without `data`).
 */
export function rateLimitPlugin(options: RateLimitOptions, store = new SlidingWindowStore()): Plugin {
  // The limiter adds `rateLimiterFn` to the context it is handed; nothing here reads it.
  const limiter = countingPlugin(options, store) as unknown as Plugin;
  return {
    onContextBuilding: limiter.onContextBuilding,
    onExecute(payload) {
      // The limiter walks every operation of the document, reading each field's arguments: a
      // document with several operations would be charged for the ones not run, and fail on their
      // variables. It is shown the operation that runs (the document itself is left as it was).
      const { args } = payload;
      const whole = args.document;
      args.document = operationToRun(whole, args.operationName);
      let receipt: ReturnType<typeof store.record>;
      try {
        receipt = store.record(() => {
          // With this store the limiter never awaits; a promise here would escape the recording.
          if (limiter.onExecute?.(payload) !== undefined) throw new Error('the rate limiter went async');
        });
      } finally {
        args.document = whole;
      }
      return {
        onExecuteDone({ result }) {
          const single = result as ExecutionResult;
          if (!(Symbol.asyncIterator in result) && single.data === undefined && single.errors?.length) {
            store.refund(receipt);
          }
        },
      };
    },
  };
}

function countingPlugin(options: RateLimitOptions, store: SlidingWindowStore) {
  const windowMs = options.windowSeconds * 1000;
  return useRateLimiter({
    identifyFn: (context) => (context as BaseContext).viewer.clientId,
    store,
    configByField: [
      {
        type: '{Query,Mutation}',
        field: '!__*',
        max: options.max,
        window: `${options.windowSeconds}s`,
        uncountRejected: true,
      },
    ],
    // The plugin only hands a message to transformError, so the details travel inside it as JSON.
    formatError: ({ fieldName, contextIdentity, fieldIdentity, max }) =>
      JSON.stringify({
        fieldName,
        max,
        retryAfter: store.retryAfterSeconds(
          { contextIdentity, fieldIdentity: fieldIdentity ?? fieldName },
          max,
          windowMs,
        ),
      }),
    transformError: (encoded) => {
      const { fieldName, max, retryAfter } = JSON.parse(encoded) as {
        fieldName: string;
        max: number;
        retryAfter: number;
      };
      return createGraphQLError(
        `Rate limit exceeded for ${fieldName}: at most ${max} calls per ${options.windowSeconds}s per client. ` +
          `Retry after ${retryAfter}s.`,
        {
          extensions: {
            code: 'RATE_LIMITED',
            retryAfterSeconds: retryAfter,
            http: { status: 429, headers: { 'Retry-After': String(retryAfter) } },
          },
        },
      );
    },
  });
}

const selected = new WeakMap<DocumentNode, Map<string, DocumentNode>>();

/**
 * The document with only the operation that runs (by name, or the only one) and the fragments;
 * the document itself when it has one operation or the choice is not clear (execution then says
 * why). Cached per document, so the common single-operation case allocates nothing.
 */
export function operationToRun(
  document: DocumentNode,
  operationName: string | null | undefined,
): DocumentNode {
  let operations = 0;
  for (const d of document.definitions) if (d.kind === Kind.OPERATION_DEFINITION) operations++;
  if (operations < 2 || !operationName) return document;
  let byName = selected.get(document);
  if (!byName) {
    byName = new Map();
    selected.set(document, byName);
  }
  let pruned = byName.get(operationName);
  if (!pruned) {
    pruned = {
      ...document,
      definitions: document.definitions.filter(
        (d) => d.kind !== Kind.OPERATION_DEFINITION || d.name?.value === operationName,
      ),
    };
    byName.set(operationName, pruned);
  }
  return pruned;
}
