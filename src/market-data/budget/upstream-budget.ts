import { AsyncLocalStorage } from 'node:async_hooks';
import { KeyedTokenBuckets } from '../../platform/flow/token-bucket.ts';
import { TooManySymbolsError, UpstreamBudgetError } from '../market-data.errors.ts';
import { type CallPriority, withCallPriority } from './call-priority.ts';

export interface UpstreamBudgetOptions {
  /** Distinct instruments one client operation may ask market data for. */
  readonly maxSymbolsPerOperation: number;
  /** Upstream (cache-missing) provider calls one client may cause per minute. */
  readonly callsPerClientPerMinute: number;
}

export const DEFAULT_MAX_SYMBOLS_PER_OPERATION = 100;
export const DEFAULT_UPSTREAM_CALLS_PER_CLIENT_PER_MINUTE = 60;

const MINUTE_MS = 60_000;

interface OperationScope {
  readonly clientId: string;
  readonly instruments: Set<string>;
  open: boolean;
}

/**
 * The live providers' rate limits are shared by everyone; this keeps one client from spending them
 * for all. Work a client asks for runs inside an operation scope (carried by AsyncLocalStorage, so
 * every service below the GraphQL resolver sees it without passing it along): the scope caps the
 * distinct instruments of the operation, and upstream calls are charged to the client's bucket.
 *
 * Work outside any scope is the server's own (jobs, the price hub) and is neither capped nor charged.
 * An operation also says who waits for it (call-priority.ts): the providers' rate limits serve
 * interactive operations first and background ones (the watchdogs' checks) only from what is spare.
 * A scope closes when its operation settles, so timers an operation happened to start (a hub poll
 * loop) are not billed to it afterwards.
 */
export class UpstreamBudget {
  readonly #storage = new AsyncLocalStorage<OperationScope>();
  /**
   * One bucket per client: `callsPerClientPerMinute` at once, refilled evenly over a minute. It never
   * lends ahead: a refused call takes nothing, so a client that asks too much is told when to come
   * back instead of queueing debt that others would wait out. Full buckets are forgotten once a
   * minute, so memory follows the clients active in the last minute.
   */
  readonly #buckets: KeyedTokenBuckets;

  constructor(
    private readonly options: UpstreamBudgetOptions,
    now: () => number,
  ) {
    const perMinute = options.callsPerClientPerMinute;
    this.#buckets = new KeyedTokenBuckets(perMinute / 60, perMinute, now, MINUTE_MS);
  }

  /** Runs one client operation: market data asked for within it counts against the client. */
  runOperation<T>(clientId: string, run: () => T, priority: CallPriority = 'interactive'): T {
    const scope: OperationScope = { clientId, instruments: new Set(), open: true };
    const close = () => {
      scope.open = false;
      scope.instruments.clear();
    };
    let result: T;
    try {
      result = withCallPriority(priority, () => this.#storage.run(scope, run));
    } catch (error) {
      close();
      throw error;
    }
    if (isThenable(result)) result.then(close, close);
    else close();
    return result;
  }

  /**
   * Runs `run` as the server's own work, outside the client operation it was started from (the
   * hub's feed, which outlives the subscriber that started it): neither capped nor charged.
   */
  outsideOperation<T>(run: () => T): T {
    return this.#storage.exit(run);
  }

  /** Counts an instrument against the current operation's cap (cache hits included). */
  admit(instrumentKey: string): void {
    const scope = this.#current();
    if (!scope || scope.instruments.has(instrumentKey)) return;
    if (scope.instruments.size >= this.options.maxSymbolsPerOperation) {
      throw new TooManySymbolsError(this.options.maxSymbolsPerOperation);
    }
    scope.instruments.add(instrumentKey);
  }

  /** Charges one upstream call to the current operation's client, or refuses it with a retry time. */
  charge(): void {
    const scope = this.#current();
    if (!scope) return;
    const taken = this.#buckets.tryTake(scope.clientId);
    if (!taken.ok) throw new UpstreamBudgetError(this.options.callsPerClientPerMinute, taken.retryAfterMs);
  }

  /** Clients whose bucket is not full (for tests and diagnostics). */
  get trackedClients(): number {
    return this.#buckets.size;
  }

  #current(): OperationScope | undefined {
    const scope = this.#storage.getStore();
    return scope?.open ? scope : undefined;
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function'
  );
}
