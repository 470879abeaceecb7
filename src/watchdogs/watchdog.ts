/**
 * What one watchdog is to the runner, and what its check works with. A watchdog's descriptor
 * (descriptor.ts), configured for a deployment, becomes a definition: a name, an interval, a line
 * for the dashboard and a check that fetches its data from the market-data layer and hands it to
 * its pure detector. The runner (runner.ts) decides when a check runs, applies the re-arm rule to
 * its findings and stores the events; a check only reports what it saw.
 */
import type { MarketDataService } from '../market-data/market-data.service.ts';
import type { Instrument } from '../market-data/types.ts';
import type { DatabaseHandle } from '../platform/db/database.ts';
import type { Finding } from './detectors/finding.ts';

/** Bars the data-fetching side of a watchdog reads: daily, or 1-minute bars in demo activity. */
export type Timescale = 'daily' | 'minute';

export interface CheckContext {
  /** The cycle's time: every window a check reads ends here. */
  readonly now: Date;
  /** Aborted when the check runs past its deadline or the instance stops. */
  readonly signal: AbortSignal;
}

/** A subject (symbol, pair, venue) whose data could not be had in this cycle. */
export interface CheckGap {
  readonly subject: string;
  readonly error: string;
  /**
   * Skipped for want of provider budget (kept for interactive callers), not failed: nothing was
   * learnt about the subject or the provider, and the next cycle asks again.
   */
  readonly deferred?: true;
}

/**
 * What an event is about beyond its symbol, as a check describes it. The runner stores it as the
 * event's asset (EventAsset of events.sql.ts, the same shape).
 */
export interface SubjectAsset {
  readonly symbol: string;
  /** `equity`, `crypto`, `fx`, ... */
  readonly assetType: string;
  readonly name?: string;
  readonly market?: string;
  readonly exchange?: string;
  readonly currency?: string;
  /** For pair findings (a correlation break): the two symbols. */
  readonly pair?: readonly [string, string];
}

export type AssetDescriber = (instrument: Instrument) => SubjectAsset;

export interface CheckOutcome<F extends Finding = Finding> {
  /** Every anomalous subject seen, not only the first. */
  readonly findings: readonly F[];
  /** Subjects looked at (symbols, pairs, venues). */
  readonly checked: number;
  /**
   * Subjects that could not be looked at. Some gaps make the check `degraded`; when every subject
   * is a gap (or the check throws) the cycle failed and is not applied to the re-arm state (it
   * would look like every condition cleared).
   */
  readonly gaps: readonly CheckGap[];
  /** What the events of this cycle are about, by symbol (symbols without an entry get a bare asset). */
  readonly assets?: ReadonlyMap<string, SubjectAsset>;
}

export type Check<F extends Finding = Finding> = (context: CheckContext) => Promise<CheckOutcome<F>>;

/** What every check may read. */
export interface CheckDeps {
  readonly marketData: MarketDataService;
  /** For a watchdog that keeps history of its own (the liquidity watchdog's depth samples). */
  readonly database: DatabaseHandle;
  /** Names, exchange and currency of the assets findings are about. */
  readonly describe: AssetDescriber;
}

/** What a watchdog watches in one deployment, and how often. */
export interface WatchScope {
  /** Watched symbols, as configured (`AAPL`, `BTC/USDT`). */
  readonly symbols: readonly string[];
  /** Watched pairs (the correlation watchdog's). */
  readonly pairs: readonly (readonly [string, string])[];
  readonly timescale: Timescale;
  readonly intervalMs: number;
}

/** A check's setup: its scope, its thresholds, and its detector bound to them. */
export interface CheckSetup<T, I, F extends Finding> extends WatchScope {
  readonly thresholds: T;
  detect(input: I): F[];
}

export interface WatchdogDefinition<N extends string = string, F extends Finding = Finding> {
  readonly name: N;
  /** One line for the dashboard. */
  readonly description: string;
  /** How often a check runs (across all instances: once per interval). */
  readonly intervalMs: number;
  check(context: CheckContext): Promise<CheckOutcome<F>>;
}
