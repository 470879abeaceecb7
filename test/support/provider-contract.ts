import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BarsCall, Capability, MarketDataProvider } from '../../src/market-data/providers/provider.ts';
import { ProviderError, type ProviderErrorKind } from '../../src/market-data/providers/provider-errors.ts';
import type { Bar, Instrument, Quote } from '../../src/market-data/types.ts';
import { describeWithFixtures } from './fixtures.ts';

/**
 * The contract every market-data provider honours, run against each adapter (on the recorded
 * responses) and against the simulated market. Cases a provider cannot answer are left out of its
 * setup; expectations pin values read from the recordings themselves.
 */
export interface ContractSetup {
  readonly name: string;
  /** Runs on recorded responses: skipped, saying so, when the recordings are absent. */
  readonly recorded?: boolean;
  create(): Promise<{ provider: MarketDataProvider; close(): Promise<void> }>;
  readonly quote?: {
    readonly instrument: Instrument;
    readonly expect?: Partial<Pick<Quote, 'price' | 'asOf' | 'currency' | 'previousClose'>>;
  };
  readonly bars?: {
    readonly call: Omit<BarsCall, 'signal'>;
    readonly expect?: {
      readonly count?: number;
      readonly first?: Partial<Bar>;
      readonly last?: Partial<Bar>;
    };
  };
  /** Instruments the provider must reject as unknown, per capability. */
  readonly unknown?: ReadonlyArray<{
    readonly capability: 'quote' | 'bars';
    readonly instrument: Instrument;
  }>;
  /** Extra capability checks (profile, depth, funding...) that return the value to sanity-check. */
  readonly extra?: ReadonlyArray<{
    readonly title: string;
    run(provider: MarketDataProvider, signal: AbortSignal): Promise<void>;
  }>;
}

const METHOD: Record<Capability, keyof MarketDataProvider> = {
  quote: 'quote',
  bars: 'bars',
  profile: 'profile',
  cryptoStats: 'cryptoStats',
  orderBook: 'orderBook',
  funding: 'funding',
  earnings: 'earnings',
  transfers: 'transfers',
  largeTrades: 'largeTrades',
  venueStatus: 'venueStatus',
  stream: 'stream',
  search: 'search',
};

const signal = () => AbortSignal.timeout(10_000);

export function providerContract(setup: ContractSetup): void {
  (setup.recorded ? describeWithFixtures : describe)(`provider contract: ${setup.name}`, () => {
    let provider: MarketDataProvider;
    let close: () => Promise<void>;

    beforeAll(async () => {
      ({ provider, close } = await setup.create());
    });
    afterAll(async () => close?.());

    it('declares exactly the capabilities it implements', () => {
      for (const [capability, method] of Object.entries(METHOD) as Array<
        [Capability, keyof MarketDataProvider]
      >) {
        expect(typeof provider[method] === 'function', `${capability} vs ${String(method)}()`).toBe(
          provider.capabilities.has(capability),
        );
      }
      expect(provider.id).toMatch(/^[a-z][a-z0-9-]*$/);
    });

    if (setup.quote) {
      const { instrument, expect: want } = setup.quote;
      it(`quotes ${instrument.symbol} with a real price, its own time and consistent change`, async () => {
        expect(provider.supports('quote', instrument)).toBe(true);
        const quote = await provider.quote!({ instrument, signal: signal() });
        expect(quote.symbol).toBe(instrument.symbol);
        expect(Number.isFinite(quote.price) && quote.price > 0).toBe(true);
        expect(quote.asOf).toBeInstanceOf(Date);
        expect(Number.isNaN(quote.asOf.getTime())).toBe(false);
        expect(quote.asOf.getTime()).toBeLessThanOrEqual(Date.now() + 60_000);
        if (quote.previousClose !== null && quote.change !== null) {
          expect(quote.change).toBeCloseTo(quote.price - quote.previousClose, 4);
        }
        if (quote.previousClose !== null && quote.changePercent !== null && quote.previousClose > 0) {
          expect(quote.changePercent).toBeCloseTo(
            ((quote.price - quote.previousClose) / quote.previousClose) * 100,
            2,
          );
        }
        if (want) expect(quote).toMatchObject(want);
      });
    }

    if (setup.bars) {
      const { call, expect: want } = setup.bars;
      it(`returns ${call.interval} bars for ${call.instrument.symbol}: sorted, unique, complete, inside the range`, async () => {
        expect(provider.supports('bars', call.instrument)).toBe(true);
        const bars = await provider.bars!({ ...call, signal: signal() });
        expect(bars.length).toBeGreaterThan(0);
        for (let i = 0; i < bars.length; i++) {
          const b = bars[i]!;
          expect(b.time.getTime()).toBeGreaterThanOrEqual(call.start.getTime());
          expect(b.time.getTime()).toBeLessThan(call.end.getTime());
          if (i > 0) expect(b.time.getTime()).toBeGreaterThan(bars[i - 1]!.time.getTime());
          for (const v of [b.open, b.high, b.low, b.close]) expect(Number.isFinite(v) && v > 0).toBe(true);
          expect(b.high).toBeGreaterThanOrEqual(Math.max(b.open, b.close) - 1e-9);
          expect(b.low).toBeLessThanOrEqual(Math.min(b.open, b.close) + 1e-9);
          if (b.volume !== null) expect(b.volume).toBeGreaterThanOrEqual(0);
        }
        if (want?.count !== undefined) expect(bars).toHaveLength(want.count);
        if (want?.first) expect(bars[0]).toMatchObject(want.first);
        if (want?.last) expect(bars.at(-1)).toMatchObject(want.last);
      });

      it('gives up with a timeout error when the caller has already given up', async () => {
        const aborted = AbortSignal.abort(new DOMException('gave up', 'TimeoutError'));
        await expectProviderError(provider.bars!({ ...call, signal: aborted }), 'timeout');
      });
    }

    for (const { capability, instrument } of setup.unknown ?? []) {
      it(`says ${instrument.symbol} is unknown (${capability}) instead of inventing a value`, async () => {
        const pending =
          capability === 'quote'
            ? provider.quote!({ instrument, signal: signal() })
            : provider.bars!({
                instrument,
                interval: '1d',
                start: new Date('2020-01-01T00:00:00Z'),
                end: new Date('2020-01-04T00:00:00Z'),
                signal: signal(),
              });
        await expectProviderError(pending, 'unknown_symbol');
      });
    }

    for (const check of setup.extra ?? []) {
      it(check.title, async () => check.run(provider, signal()));
    }
  });
}

export async function expectProviderError(
  pending: Promise<unknown>,
  kind: ProviderErrorKind,
): Promise<ProviderError> {
  const error = await pending.then(
    (value) => {
      throw new Error(
        `expected a ${kind} ProviderError, got a value: ${JSON.stringify(value).slice(0, 200)}`,
      );
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProviderError);
  expect((error as ProviderError).kind).toBe(kind);
  return error as ProviderError;
}
