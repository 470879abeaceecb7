import type { Lineage } from '../../market-data/arbitration/lineage.ts';
import { instrumentKey } from '../../market-data/instruments.ts';
import { UnknownSymbolError } from '../../market-data/market-data.errors.ts';
import type { MarketDataService } from '../../market-data/market-data.service.ts';
import type { AssetClass, Bar, Instrument, Profile, Quote } from '../../market-data/types.ts';
import type { Clock } from '../../platform/clock.ts';
import { calendarDaysFor, MAX_HOURLY_BARS, maxDailyBars } from './windows.ts';

/** What a query needs of one instrument; the largest request per kind wins. */
export interface Needs {
  quote?: boolean;
  profile?: boolean;
  /** Daily bars wanted (most recent). */
  daily?: number;
  hourly?: number;
}

export type Loaded<T> =
  | { readonly ok: true; readonly value: T; readonly lineage: Lineage }
  | { readonly ok: false; readonly error: Error };

export interface InstrumentData {
  readonly instrument: Instrument;
  readonly quote?: Loaded<Quote>;
  readonly profile?: Loaded<Profile>;
  readonly daily?: Loaded<Bar[]>;
  readonly hourly?: Loaded<Bar[]>;
}

/**
 * Market data for one query, planned before it is fetched: every statement first declares what it
 * needs, then each instrument's quote, profile and bars are fetched once (the longest window
 * wins), all instruments in parallel. Failures are kept per item so one missing series does not
 * sink the whole query.
 */
export class QueryData {
  readonly #needs = new Map<string, { instrument: Instrument; needs: Needs }>();
  readonly #data = new Map<string, InstrumentData>();

  constructor(
    private readonly marketData: MarketDataService,
    private readonly clock: Clock,
  ) {}

  need(instrument: Instrument, needs: Needs): void {
    const key = instrumentKey(instrument);
    const entry = this.#needs.get(key) ?? { instrument, needs: {} };
    const n = entry.needs;
    if (needs.quote) n.quote = true;
    if (needs.profile) n.profile = true;
    if (needs.daily) n.daily = Math.max(n.daily ?? 0, needs.daily);
    if (needs.hourly) n.hourly = Math.max(n.hourly ?? 0, needs.hourly);
    this.#needs.set(key, entry);
  }

  /** The plan, for EXPLAIN: what will be fetched for each instrument. */
  plan(): Array<{ symbol: string; assetClass: AssetClass; needs: Needs }> {
    return [...this.#needs.values()].map(({ instrument, needs }) => ({
      symbol: instrument.symbol,
      assetClass: instrument.assetClass,
      needs: { ...needs },
    }));
  }

  async load(): Promise<void> {
    const now = this.clock.now();
    await Promise.all(
      [...this.#needs.entries()].map(async ([key, { instrument, needs }]) => {
        const capture = <T>(p: Promise<{ value: T; lineage: Lineage }>): Promise<Loaded<T>> =>
          p.then(
            (r) => ({ ok: true as const, value: r.value, lineage: r.lineage }),
            (error: unknown) => ({
              ok: false as const,
              error: error instanceof Error ? error : new Error(String(error)),
            }),
          );
        const bars = (interval: '1d' | '1h', count: number) => {
          const days = calendarDaysFor({ interval, bars: count }, instrument.assetClass);
          return capture(
            this.marketData
              .bars(instrument, interval, new Date(now.getTime() - days * 86_400_000), now)
              .then((r) => ({ value: r.value.slice(-count), lineage: r.lineage })),
          );
        };
        const maxDaily = maxDailyBars(instrument.assetClass);
        const [quote, profile, daily, hourly] = await Promise.all([
          needs.quote ? capture(this.marketData.quote(instrument)) : undefined,
          needs.profile ? capture(this.marketData.profile(instrument)) : undefined,
          needs.daily ? bars('1d', Math.min(needs.daily, maxDaily)) : undefined,
          needs.hourly ? bars('1h', Math.min(needs.hourly, MAX_HOURLY_BARS)) : undefined,
        ]);
        this.#data.set(key, {
          instrument,
          ...(quote ? { quote } : {}),
          ...(profile ? { profile } : {}),
          ...(daily ? { daily } : {}),
          ...(hourly ? { hourly } : {}),
        });
      }),
    );
  }

  get(instrument: Instrument): InstrumentData {
    return this.#data.get(instrumentKey(instrument)) ?? { instrument };
  }

  /**
   * Throws the market data's UNKNOWN_SYMBOL error (with every provider's reason) when nothing was
   * loaded for `instrument` and a provider answered that it does not know the symbol: a statement
   * naming it then fails as a whole instead of answering a value-less row per metric.
   */
  requireKnown(instrument: Instrument): void {
    const d = this.get(instrument);
    const items = [d.quote, d.profile, d.daily, d.hourly].filter((i) => i !== undefined);
    if (items.length === 0 || items.some((i) => i.ok)) return;
    const unknown = items
      .map((i) => (i.ok ? undefined : i.error))
      .find((e) => e instanceof UnknownSymbolError);
    if (unknown) throw unknown;
  }
}
