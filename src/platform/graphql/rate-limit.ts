import { type Identity, Store, useRateLimiter } from '@envelop/rate-limiter';
import { createGraphQLError } from 'graphql-yoga';
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

  override getForIdentity(identity: Identity): readonly number[] {
    return this.#log.get(key(identity)) ?? [];
  }

  override setForIdentity(identity: Identity, timestamps: readonly number[], windowMs?: number): void {
    const now = Date.now();
    if (timestamps.length === 0) this.#log.delete(key(identity));
    else this.#log.set(key(identity), [...timestamps]);
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
}

const key = (identity: Identity) => `${identity.contextIdentity}\u0000${identity.fieldIdentity}`;

/**
 * Every Query and Mutation root field (introspection excepted) is limited per client identity
 * (API key, else remote address). Over HTTP the answer is a 429 with a numeric Retry-After; over
 * graphql-ws the same error arrives in the operation result with `extensions.code = RATE_LIMITED`.
 */
export function rateLimitPlugin(options: RateLimitOptions, store = new SlidingWindowStore()) {
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
