import { AsyncLocalStorage } from 'node:async_hooks';
import { AppError } from '../../platform/errors.ts';
import { ProviderError } from '../providers/provider-errors.ts';

/**
 * Who waits for a provider call. `interactive` (the default): a client's request, or work serving
 * clients now (the price hub's feeds). `background`: the server's own periodic work (the
 * watchdogs' checks), which nobody waits for and which may come back at its next cycle.
 *
 * Carried by AsyncLocalStorage, like the client operation's budget scope, so a provider's rate
 * limiter deep below the service knows who is calling without every read passing it along. A
 * provider gives interactive calls its budget first (see ProviderHttp): background calls take only
 * spare tokens and are skipped (`deferred`) when none comes in time.
 */
export type CallPriority = 'interactive' | 'background';

const storage = new AsyncLocalStorage<CallPriority>();

/** Runs `run` (and every call it makes, timers included) with this priority. */
export function withCallPriority<T>(priority: CallPriority, run: () => T): T {
  return storage.run(priority, run);
}

/** The priority of the calls made here: interactive unless background work said otherwise. */
export function callPriority(): CallPriority {
  return storage.getStore() ?? 'interactive';
}

/**
 * Whether `error` says only that background work was skipped for want of provider budget: a
 * provider's deferral, or a read every provider of which deferred it. Nothing was learnt about the
 * data or the providers, so it is no failure of whoever asked.
 */
export function deferredForBudget(error: unknown): boolean {
  if (error instanceof ProviderError) return error.kind === 'deferred';
  if (!(error instanceof AppError) || error.code !== 'MARKET_DATA_UNAVAILABLE') return false;
  const attempts = error.details?.attempts;
  return (
    Array.isArray(attempts) &&
    attempts.length > 0 &&
    attempts.every((a) => (a as { kind?: unknown }).kind === 'deferred')
  );
}
