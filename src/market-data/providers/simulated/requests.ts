import type { Instrument } from '../../types.ts';
import type { Capability } from '../provider.ts';
import { ProviderError, unknownSymbol, unsupported } from '../provider-errors.ts';
import { capableOf, type Known, resolve } from './universe.ts';

/** Checks shared by every call of the simulated provider; each failure is a typed ProviderError. */
export const ID = 'simulated';

/** The caller's signal is already aborted: answer as a timeout, as a remote provider would. */
export function guard(signal: AbortSignal): void {
  if (signal.aborted) {
    throw new ProviderError(ID, 'timeout', 'the caller gave up before the simulated market answered', {
      cause: signal.reason,
    });
  }
}

/** The universe entry behind an instrument, if it exists and the capability makes sense for it. */
export function lookup(capability: Capability, instrument: Instrument): Known {
  const known = resolve(instrument);
  if (!known)
    throw unknownSymbol(ID, instrument.symbol, `not in the simulated ${instrument.assetClass} universe`);
  if (!capableOf(capability, known)) throw unsupported(ID, `${capability} for ${instrument.symbol}`);
  return known;
}

/** Nothing had traded yet at that time (the simulated history starts on 2015-01-01). */
export function noData(symbol: string, atMs: number): ProviderError {
  return unsupported(
    ID,
    `data for ${symbol} at ${new Date(atMs).toISOString()} (the simulation starts 2015-01-01)`,
  );
}

export function validDate(value: Date, field: string): number {
  const ms = value instanceof Date ? value.getTime() : Number.NaN;
  if (!Number.isFinite(ms)) throw new ProviderError(ID, 'unsupported', `${field} is not a valid date`);
  return ms;
}
