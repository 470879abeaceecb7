import { describe, expect, it } from 'vitest';
import type { Bar, BarInterval } from '../../types.ts';
import { pathBars } from './bars.ts';
import { DAY_MS, dayIndexOf, dayStartMs, sessionOf } from './calendar.ts';
import { SimulatedMarket } from './market.ts';
import { quoteOf, snapshot } from './quotes.ts';
import { type Known, resolve } from './universe.ts';

const known = (symbol: string, assetClass: Known['instrument']['assetClass'] = 'equity') =>
  resolve({ symbol, assetClass })!;
const NOW = Date.parse('2025-06-11T15:03:27.500Z');

function bars(market: SimulatedMarket, k: Known, interval: BarInterval, from: string, to: string, now = NOW) {
  const view = k.view!;
  return pathBars(market, market.path(view.path), view, interval, Date.parse(from), Date.parse(to), now);
}

const logReturns = (closes: number[]) => closes.slice(1).map((c, i) => Math.log(c / closes[i]!));
const stdev = (xs: number[]) => {
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  return Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / (xs.length - 1));
};
const correlation = (a: number[], b: number[]) => {
  const ma = a.reduce((x, y) => x + y, 0) / a.length;
  const mb = b.reduce((x, y) => x + y, 0) / b.length;
  let c = 0;
  let va = 0;
  let vb = 0;
  for (let i = 0; i < a.length; i++) {
    c += (a[i]! - ma) * (b[i]! - mb);
    va += (a[i]! - ma) ** 2;
    vb += (b[i]! - mb) ** 2;
  }
  return c / Math.sqrt(va * vb);
};

function aggregate(minutes: Bar[]) {
  return {
    open: minutes[0]!.open,
    high: Math.max(...minutes.map((b) => b.high)),
    low: Math.min(...minutes.map((b) => b.low)),
    close: minutes.at(-1)!.close,
    volume: minutes.reduce((s, b) => s + (b.volume ?? 0), 0),
  };
}

describe('simulated paths: daily and intraday agree', () => {
  const cases: Array<[string, Known, string]> = [
    ['an equity', known('AAPL'), '2024-03-14'],
    ['an ETF on an earnings-free day', known('SPY'), '2019-11-20'],
    ['an index', known('^GSPC', 'index'), '2021-02-03'],
    ['a coin', known('BTC/USDT', 'crypto'), '2022-05-11'],
    ['an inverted stablecoin pair', known('USDT/USDC', 'crypto'), '2023-03-11'],
    ['an fx pair', known('EUR/USD', 'fx'), '2020-03-18'],
    ['a yield', known('US10Y', 'macro'), '2018-10-05'],
  ];
  for (const activity of ['normal', 'demo'] as const) {
    const market = new SimulatedMarket('vigil', activity);
    for (const [what, k, date] of cases) {
      it(`${what} (${k.instrument.symbol}, ${activity}): the day's bar aggregates its minutes`, () => {
        const next = new Date(Date.parse(date) + DAY_MS).toISOString();
        const [daily] = bars(market, k, '1d', date, next);
        const minutes = bars(market, k, '1m', date, next);
        const hours = bars(market, k, '1h', date, next);
        expect(daily).toBeDefined();
        const agg = aggregate(minutes);
        expect(agg.open).toBe(daily!.open);
        expect(agg.high).toBe(daily!.high);
        expect(agg.low).toBe(daily!.low);
        expect(agg.close).toBe(daily!.close);
        if (daily!.volume === null) expect(minutes.every((b) => b.volume === null)).toBe(true);
        else expect(Math.abs(agg.volume - daily!.volume) / daily!.volume).toBeLessThan(1e-9);
        expect(aggregate(hours)).toMatchObject({
          open: daily!.open,
          high: daily!.high,
          low: daily!.low,
          close: daily!.close,
        });
        for (const b of minutes) {
          expect(b.high).toBeGreaterThanOrEqual(Math.max(b.open, b.close));
          expect(b.low).toBeLessThanOrEqual(Math.min(b.open, b.close));
        }
      });
    }
  }

  it('trades US listings only in the regular session, crypto around the clock', () => {
    const market = new SimulatedMarket('vigil', 'normal');
    const aapl = bars(market, known('AAPL'), '1m', '2024-03-14', '2024-03-15');
    expect(aapl).toHaveLength(390);
    expect(aapl[0]!.time.toISOString()).toBe('2024-03-14T13:30:00.000Z');
    expect(aapl.at(-1)!.time.toISOString()).toBe('2024-03-14T19:59:00.000Z');
    expect(bars(market, known('AAPL'), '1m', '2024-03-16', '2024-03-17')).toHaveLength(0);
    expect(bars(market, known('BTC/USDT', 'crypto'), '1m', '2024-03-16', '2024-03-17')).toHaveLength(1440);
    // U-shaped volume: the first and last half hours trade more than midday.
    const volume = (from: number, to: number) => aapl.slice(from, to).reduce((s, b) => s + b.volume!, 0);
    expect(volume(0, 30)).toBeGreaterThan(1.5 * volume(180, 210));
    expect(volume(360, 390)).toBeGreaterThan(1.3 * volume(180, 210));
  });
});

describe('simulated paths: never the future', () => {
  const market = new SimulatedMarket('vigil', 'normal');

  it('ends bars at now, with a partial current bar', () => {
    const btc = known('BTC/USDT', 'crypto');
    const minutes = bars(market, btc, '1m', '2025-06-11T14:00:00Z', '2025-06-12T00:00:00Z');
    expect(minutes.at(-1)!.time.getTime()).toBe(Date.parse('2025-06-11T15:03:00Z'));
    const days = bars(market, btc, '1d', '2025-06-01', '2025-07-01');
    expect(days.at(-1)!.time.toISOString()).toBe('2025-06-11T00:00:00.000Z');
    const quote = snapshot(market, btc, NOW)!;
    expect(quote.price).toBe(minutes.at(-1)!.close);
    expect(quote.price).toBe(days.at(-1)!.close);
    // The partial minute is the start of the full one: same open, a range inside the full range.
    const later = bars(market, btc, '1m', '2025-06-11T15:03:00Z', '2025-06-11T15:04:00Z', NOW + DAY_MS)[0]!;
    expect(later.open).toBe(minutes.at(-1)!.open);
    expect(later.high).toBeGreaterThanOrEqual(minutes.at(-1)!.high);
    expect(later.low).toBeLessThanOrEqual(minutes.at(-1)!.low);
    expect(later.volume!).toBeGreaterThan(minutes.at(-1)!.volume!);
  });

  it('answers a past range the same whatever the present is', () => {
    const aapl = known('AAPL');
    const early = bars(
      market,
      aapl,
      '1m',
      '2025-06-10T13:00:00Z',
      '2025-06-10T21:00:00Z',
      Date.parse('2025-06-10T21:00:00Z'),
    );
    const late = bars(
      market,
      aapl,
      '1m',
      '2025-06-10T13:00:00Z',
      '2025-06-10T21:00:00Z',
      Date.parse('2030-01-01T00:00:00Z'),
    );
    expect(late).toEqual(early);
    // While the session runs, its daily bar holds only what has traded so far.
    const running = bars(
      market,
      aapl,
      '1d',
      '2025-06-01',
      '2025-06-11',
      Date.parse('2025-06-10T19:00:00Z'),
    ).at(-1)!;
    const done = bars(market, aapl, '1d', '2025-06-01', '2025-06-11').at(-1)!;
    expect(running.time).toEqual(done.time);
    expect(running.volume!).toBeLessThan(done.volume!);
    expect(running.high).toBeLessThanOrEqual(done.high);
  });

  it('quotes a closed US market at its last close, as of the close', () => {
    const saturday = Date.parse('2025-06-14T12:00:00Z');
    const s = snapshot(market, known('AAPL'), saturday)!;
    const friday = bars(market, known('AAPL'), '1d', '2025-06-13', '2025-06-14', saturday)[0]!;
    expect(s).toMatchObject({ price: friday.close, asOf: Date.parse('2025-06-13T20:00:00Z') });
    const thursday = bars(market, known('AAPL'), '1d', '2025-06-12', '2025-06-13', saturday)[0]!;
    expect(s.reference).toBe(thursday.close);
    const state = (iso: string) =>
      quoteOf(known('AAPL'), snapshot(market, known('AAPL'), Date.parse(iso))!, Date.parse(iso)).marketState;
    expect(state('2025-06-14T12:00:00Z')).toBe('closed');
    expect(state('2025-06-16T12:00:00Z')).toBe('pre'); // 08:00 New York
    expect(state('2025-06-16T20:30:00Z')).toBe('post'); // 16:30
    expect(state('2025-06-17T00:30:00Z')).toBe('closed'); // 20:30, after-hours over
  });
});

describe('simulated paths: determinism', () => {
  it('gives bit-identical values for the same seed and different ones for another seed', () => {
    const a = new SimulatedMarket('vigil', 'demo');
    const b = new SimulatedMarket('vigil', 'demo');
    const c = new SimulatedMarket('another seed', 'demo');
    const k = known('ETH/USDT', 'crypto');
    // Different access orders must not matter: b is asked about a later day first.
    bars(b, k, '1m', '2025-06-11T00:00:00Z', '2025-06-11T02:00:00Z');
    const range = ['2025-06-09T00:00:00Z', '2025-06-09T03:00:00Z'] as const;
    expect(bars(a, k, '1m', ...range)).toEqual(bars(b, k, '1m', ...range));
    expect(bars(a, k, '1d', '2016-01-01', '2025-06-01')).toEqual(
      bars(b, k, '1d', '2016-01-01', '2025-06-01'),
    );
    expect(snapshot(a, k, NOW)).toEqual(snapshot(b, k, NOW));
    expect(bars(c, k, '1m', ...range)[10]!.close).not.toBe(bars(a, k, '1m', ...range)[10]!.close);
  });
});

describe('simulated paths: realistic statistics', () => {
  const market = new SimulatedMarket('vigil', 'normal');
  const closes = (symbol: string, assetClass: Known['instrument']['assetClass'] = 'equity') =>
    bars(market, known(symbol, assetClass), '1d', '2020-06-01', '2025-06-01').map((b) => b.close);

  it('has equity-like and crypto-like volatility', () => {
    const spy = stdev(logReturns(closes('SPY'))) * Math.sqrt(252);
    const btc = stdev(logReturns(closes('BTC/USDT', 'crypto'))) * Math.sqrt(365);
    expect(spy).toBeGreaterThan(0.1);
    expect(spy).toBeLessThan(0.3);
    expect(btc).toBeGreaterThan(0.4);
    expect(btc).toBeLessThan(1);
  });

  it('moves related assets together and VIX against the market', () => {
    expect(correlation(logReturns(closes('AAPL')), logReturns(closes('MSFT')))).toBeGreaterThan(0.3);
    expect(correlation(logReturns(closes('SPY')), logReturns(closes('QQQ')))).toBeGreaterThan(0.6);
    const crypto = (s: string) => logReturns(closes(s, 'crypto'));
    expect(correlation(crypto('BTC/USDT'), crypto('ETH/USDT'))).toBeGreaterThan(0.5);
    expect(correlation(logReturns(closes('SPY')), logReturns(closes('VIX', 'macro')))).toBeLessThan(-0.4);
  });

  it('keeps levels near their real-world magnitude and stablecoins near 1', () => {
    const at = (symbol: string, assetClass: Known['instrument']['assetClass'] = 'equity') =>
      bars(market, known(symbol, assetClass), '1d', '2025-01-02', '2025-01-03')[0]!.close;
    expect(at('AAPL')).toBeGreaterThan(100);
    expect(at('AAPL')).toBeLessThan(1_000);
    expect(at('BTC/USDT', 'crypto')).toBeGreaterThan(10_000);
    expect(at('BTC/USDT', 'crypto')).toBeLessThan(300_000);
    expect(at('^GSPC', 'index') / at('SPY')).toBeCloseTo(10.02, 1);
    const usdt = bars(market, known('USDT/USD', 'crypto'), '1d', '2024-01-01', '2025-01-01');
    for (const b of usdt) expect(Math.abs(b.close - 1)).toBeLessThan(0.005);
  });

  it('generates a decade of daily history starting 2015-01-01 for every path kind', () => {
    for (const [symbol, assetClass] of [
      ['NVDA', 'equity'],
      ['DOGE/USD', 'crypto'],
      ['USD/JPY', 'fx'],
      ['DXY', 'macro'],
    ] as const) {
      const history = bars(market, known(symbol, assetClass), '1d', '2014-06-01', '2025-06-01');
      expect(history[0]!.time.getTime()).toBeGreaterThanOrEqual(Date.UTC(2015, 0, 1));
      expect(history[0]!.time.getTime()).toBeLessThan(Date.UTC(2015, 0, 8));
      expect(history.length).toBeGreaterThan(2_500);
      expect(history.every((b) => b.low > 0 && b.low <= b.high)).toBe(true);
    }
    expect(sessionOf('crypto', dayIndexOf(dayStartMs(0)))).not.toBeNull();
  });
});
