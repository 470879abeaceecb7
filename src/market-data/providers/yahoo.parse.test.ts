import { describe, expect, it } from 'vitest';
import {
  describeWithFixtures,
  fixtureJson,
  itWithFixtures,
  loadFixture,
} from '../../../test/support/fixtures.ts';
import { ProviderError } from './provider-errors.ts';
import {
  assetClassOf,
  barsInRange,
  cookieHeader,
  parseChart,
  parseCrumb,
  parseSearch,
  profileFromQuoteV7,
  quoteFromChart,
} from './yahoo.parse.ts';

const TSLA_1D = 'yahoo/chart-v8-TSLA-1d-period1-0-to-2023-08-12.json';
const AAPL_1M = 'yahoo/chart-v8-AAPL-1m-2024-10-02.json';
const AAPL_1D = 'yahoo/chart-v8-AAPL-1d-2020-08-31-to-2020-11-07.json';
const BTC_1D = 'yahoo/chart-v8-BTC-USD-1d-2020-01-01-to-2020-01-03.json';
const MSFT_1D = 'yahoo/chart-v8-MSFT-1d-2021-02-01-to-2022-01-31-events-div.json';
const WEEKEND = 'yahoo/chart-v8-AAPL-1m-2025-02-01-weekend-empty.json';
const SI_404 = 'yahoo/chart-v8-error-404-SI-no-data-found.json';
const QUOTE_V7 = 'yahoo/quote-v7-AAPL-BABA.json';

const chartOf = (file: string, symbol: string) => {
  const recorded = loadFixture(file);
  return parseChart(JSON.parse(recorded.body), recorded.status, symbol);
};

function kindOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return error instanceof ProviderError ? error.kind : `not a ProviderError: ${String(error)}`;
  }
  return undefined;
}

function errorOf(run: () => unknown): ProviderError {
  try {
    run();
  } catch (error) {
    if (error instanceof ProviderError) return error;
    throw error;
  }
  throw new Error('expected a ProviderError, got a value');
}

describe('yahoo chart v8', () => {
  itWithFixtures('reads the full TSLA daily history, split-adjusted, with adjusted closes', () => {
    const { bars } = chartOf(TSLA_1D, 'TSLA');
    expect(bars).toHaveLength(3303);
    expect(bars[0]!.time.toISOString()).toBe('2010-06-29T13:30:00.000Z');
    expect(bars[0]!.open).toBeCloseTo(1.2667, 4);
    expect(bars[0]!.adjClose).toBeCloseTo(bars[0]!.close, 6);
    expect(bars.at(-1)!.time.toISOString()).toBe('2023-08-11T13:30:00.000Z');
    expect(bars.at(-1)!.volume).toBe(98_866_600);
  });

  itWithFixtures('keeps adjclose apart from close where dividends make them differ', () => {
    const { bars } = chartOf(MSFT_1D, 'MSFT');
    expect(bars).toHaveLength(252);
    expect(bars[0]!.close).toBeCloseTo(239.65, 2);
    expect(bars[0]!.adjClose).toBeCloseTo(231.1865, 3);
  });

  itWithFixtures('drops the 1m bar with null prices and cuts the bar Yahoo sends past the range', () => {
    const { bars } = chartOf(AAPL_1M, 'AAPL');
    expect(bars).toHaveLength(390);
    expect(bars.some((bar) => bar.time.toISOString() === '2024-10-02T15:15:00.000Z')).toBe(false);
    const inRange = barsInRange(bars, new Date('2024-10-02T00:00:00Z'), new Date('2024-10-03T00:00:00Z'));
    expect(inRange).toHaveLength(389);
    expect(inRange[0]!.time.toISOString()).toBe('2024-10-02T13:30:00.000Z');
    expect(inRange.at(-1)!.time.toISOString()).toBe('2024-10-02T19:59:00.000Z');
    expect(inRange.every((bar) => bar.adjClose === undefined)).toBe(true);
  });

  itWithFixtures('treats period2 as exclusive although Yahoo includes the bar at period2', () => {
    const { bars } = chartOf(BTC_1D, 'BTC/USD');
    expect(bars).toHaveLength(3);
    const inRange = barsInRange(bars, new Date('2020-01-01T00:00:00Z'), new Date('2020-01-03T00:00:00Z'));
    expect(inRange.map((bar) => bar.time.toISOString())).toEqual([
      '2020-01-01T00:00:00.000Z',
      '2020-01-02T00:00:00.000Z',
    ]);
  });

  itWithFixtures('sorts and deduplicates bars by time, the later entry winning', () => {
    const body = fixtureJson<{
      chart: {
        result: Array<{ timestamp: number[]; indicators: { quote: Array<Record<string, unknown[]>> } }>;
      };
    }>(BTC_1D);
    const result = body.chart.result[0]!;
    const quote = result.indicators.quote[0]!;
    // Reversed, and the first day sent again with the third day's values.
    result.timestamp = [...result.timestamp].reverse().concat(result.timestamp[0]!);
    for (const key of Object.keys(quote)) quote[key] = [...quote[key]!].reverse().concat(quote[key]![2]);
    const { bars } = parseChart(body, 200, 'BTC/USD');
    expect(bars.map((bar) => bar.time.toISOString().slice(0, 10))).toEqual([
      '2020-01-01',
      '2020-01-02',
      '2020-01-03',
    ]);
    expect(bars[0]!.close).toBe(bars[2]!.close);
  });

  itWithFixtures('reads a weekend without timestamps as no bars', () => {
    const { bars, meta } = chartOf(WEEKEND, 'AAPL');
    expect(bars).toEqual([]);
    expect(meta.symbol).toBe('AAPL');
  });

  itWithFixtures('maps the 404 "No data found" chart error to unknown_symbol', () => {
    expect(kindOf(() => chartOf(SI_404, 'SI'))).toBe('unknown_symbol');
    expect(errorOf(() => chartOf(SI_404, 'SI')).details.reason).toBe('No data found, symbol may be delisted');
  });

  it('maps the 400 "Data doesn\'t exist" chart error to unknown_symbol, other 400s to unsupported', () => {
    // Yahoo's answer for a range it has no data for (not listed then, or not at all).
    const noData = {
      chart: {
        result: null,
        error: {
          code: 'Bad Request',
          description: "Data doesn't exist for startDate = 1577836800, endDate = 1578009600",
        },
      },
    };
    expect(kindOf(() => parseChart(noData, 400, 'XYZ'))).toBe('unknown_symbol');
    expect(() => parseChart(noData, 400, 'XYZ')).toThrow(/unknown symbol XYZ \(Data doesn't exist/);
    expect(errorOf(() => parseChart(noData, 400, 'XYZ')).details.reason).toBe(
      "Data doesn't exist for startDate = 1577836800, endDate = 1578009600",
    );
    const badInterval = {
      chart: {
        result: null,
        error: { code: 'Bad Request', description: 'Invalid input - interval=7m is not supported' },
      },
    };
    expect(kindOf(() => parseChart(badInterval, 400, 'AAPL'))).toBe('unsupported');
  });

  itWithFixtures('reads the volume 0 Yahoo writes for currencies as no volume', () => {
    // Yahoo's currency charts (EURUSD=X) say instrumentType CURRENCY and carry volume 0 in every bar
    // and in the meta; the BTC recording with those fields set that way stands in for one.
    const body = fixtureJson<{
      chart: {
        result: Array<{
          meta: Record<string, unknown>;
          indicators: { quote: Array<Record<string, unknown[]>> };
        }>;
      };
    }>(BTC_1D);
    const result = body.chart.result[0]!;
    result.meta.instrumentType = 'CURRENCY';
    result.meta.regularMarketVolume = 0;
    result.indicators.quote[0]!.volume = result.indicators.quote[0]!.volume!.map(() => 0);
    const chart = parseChart(body, 200, 'EUR/USD');
    expect(chart.bars).toHaveLength(3);
    expect(chart.bars.every((bar) => bar.volume === null)).toBe(true);
    expect(quoteFromChart(chart, 'EUR/USD', 'fx').volume).toBeNull();
    // Anything else keeps a reported volume, zero included.
    expect(chartOf(BTC_1D, 'BTC/USD').bars.every((bar) => typeof bar.volume === 'number')).toBe(true);
  });

  it('refuses bodies that are not a chart', () => {
    expect(kindOf(() => parseChart('<html>', 200, 'AAPL'))).toBe('bad_response');
    expect(kindOf(() => parseChart({ chart: { result: [], error: null } }, 200, 'AAPL'))).toBe(
      'bad_response',
    );
  });
});

describeWithFixtures('yahoo quote from chart meta', () => {
  it('takes the price, its own time and the previous session close from the meta', () => {
    const quote = quoteFromChart(chartOf(AAPL_1M, 'AAPL'), 'AAPL', 'equity');
    expect(quote).toMatchObject({
      symbol: 'AAPL',
      price: 225.67,
      previousClose: 226.78,
      dayHigh: 226.8,
      dayLow: 223.324,
      volume: 33_638_504,
      currency: 'USD',
      name: 'Apple Inc.',
      exchange: 'NasdaqGS',
      // An intraday chart's first bar is not the session open of the quoted day.
      open: null,
    });
    expect(quote.asOf.toISOString()).toBe('2024-10-03T20:00:01.000Z');
    expect(quote.change).toBeCloseTo(225.67 - 226.78, 6);
    expect(quote.changePercent).toBeCloseTo(((225.67 - 226.78) / 226.78) * 100, 6);
  });

  it('does not use chartPreviousClose of a chart longer than one day', () => {
    const quote = quoteFromChart(chartOf(AAPL_1D, 'AAPL'), 'AAPL', 'equity');
    expect(quote.previousClose).toBeNull();
    expect(quote.change).toBeNull();
    expect(quote.changePercent).toBeNull();
    expect(quote.open).toBeNull();
  });

  it('reads the session open from the daily bar of a one-day chart', () => {
    const body = fixtureJson<{ chart: { result: Array<Record<string, unknown>> } }>(AAPL_1D);
    const result = body.chart.result[0]!;
    const meta = result.meta as Record<string, unknown>;
    const chart = parseChart(body, 200, 'AAPL');
    const lastBar = chart.bars.at(-1)!;
    // As a range=1d answer on that day would be: the meta's time is that session's close.
    meta.range = '1d';
    meta.regularMarketTime = lastBar.time.getTime() / 1000 + 6.5 * 3600;
    const quote = quoteFromChart(parseChart(body, 200, 'AAPL'), 'AAPL', 'equity');
    expect(quote.open).toBe(lastBar.open);
    expect(quote.previousClose).toBe(124.808);
  });

  it('leaves the change of a crypto quote empty: Yahoo measures it from 00:00 UTC, not 24 h back', () => {
    const quote = quoteFromChart(chartOf(BTC_1D, 'BTC/USD'), 'BTC/USD', 'crypto');
    expect(quote.price).toBe(97208.17);
    expect(quote.change).toBeNull();
    expect(quote.changePercent).toBeNull();
    expect(quote.name).toBe('Bitcoin USD');
  });

  it('refuses a meta without a price', () => {
    const chart = chartOf(AAPL_1M, 'AAPL');
    const meta = { ...chart.meta, regularMarketPrice: null };
    expect(kindOf(() => quoteFromChart({ ...chart, meta }, 'AAPL', 'equity'))).toBe('bad_response');
  });
});

describeWithFixtures('yahoo profile from quote v7', () => {
  const body = JSON.parse(loadFixture(QUOTE_V7).body);
  const fallback = new Date('2000-01-01T00:00:00Z');

  it('reads the AAPL row, leaving out what quote v7 does not carry', () => {
    const profile = profileFromQuoteV7(body, 'AAPL', { symbol: 'AAPL', assetClass: 'equity' }, fallback);
    expect(profile).toEqual({
      symbol: 'AAPL',
      name: 'Apple Inc.',
      exchange: 'NasdaqGS',
      currency: 'USD',
      assetClass: 'equity',
      sector: null,
      industry: null,
      marketCap: 3_674_405_863_424,
      peRatio: 38.763866,
      beta: null,
      averageVolume: 50_443_058,
      week52High: 260.1,
      week52Low: 164.08,
      sharesOutstanding: 15_022_100_480,
      asOf: new Date(1_739_566_800_000),
    });
  });

  it('picks the row of the asked symbol', () => {
    const profile = profileFromQuoteV7(body, 'BABA', { symbol: 'BABA', assetClass: 'equity' }, fallback);
    expect(profile.name).toBe('Alibaba Group Holding Limited');
    expect(profile.exchange).toBe('NYSE');
  });

  it('says a symbol missing from the result is unknown', () => {
    expect(
      kindOf(() => profileFromQuoteV7(body, 'MSFT', { symbol: 'MSFT', assetClass: 'equity' }, fallback)),
    ).toBe('unknown_symbol');
  });

  it('maps quote types to asset classes', () => {
    expect(['EQUITY', 'ETF', 'CRYPTOCURRENCY', 'CURRENCY', 'INDEX', 'MUTUALFUND'].map(assetClassOf)).toEqual([
      'equity',
      'etf',
      'crypto',
      'fx',
      'index',
      undefined,
    ]);
  });
});

describe('yahoo session helpers', () => {
  it('turns joined Set-Cookie headers into one Cookie header, commas in Expires included', () => {
    const joined =
      'A3=d=AQABBK&S=AQAAAk; Expires=Thu, 19 Feb 2026 11:47:42 GMT; Max-Age=31557600; Domain=.yahoo.com; ' +
      'Path=/; SameSite=None; Secure; HttpOnly, A1=d=AQABBK; Path=/';
    expect(cookieHeader(joined)).toBe('A3=d=AQABBK&S=AQAAAk; A1=d=AQABBK');
    expect(cookieHeader(undefined)).toBeUndefined();
    expect(cookieHeader('')).toBeUndefined();
  });

  it('accepts a crumb token and refuses pages and empty bodies', () => {
    expect(parseCrumb('Phb0wzVdPs6\n')).toBe('Phb0wzVdPs6');
    expect(parseCrumb('')).toBeUndefined();
    expect(parseCrumb('<html><body>Too Many Requests</body></html>')).toBeUndefined();
    expect(parseCrumb({ finance: null })).toBeUndefined();
  });
});

describe('yahoo search v1', () => {
  // The shape of Yahoo's /v1/finance/search `quotes` (no recording of it is kept).
  const row = (symbol: string, quoteType: string, longname: string, exchDisp: string) => ({
    exchange: 'NMS',
    shortname: longname.toUpperCase(),
    quoteType,
    symbol,
    index: 'quotes',
    score: 1000,
    typeDisp: quoteType,
    longname,
    exchDisp,
    isYahooFinance: true,
  });

  it("reads matches Vigil can write, in Yahoo's order, and leaves out the rest", () => {
    const body = {
      explains: [],
      count: 8,
      quotes: [
        row('AAPL', 'EQUITY', 'Apple Inc.', 'NASDAQ'),
        row('AAPL.SN', 'EQUITY', 'Apple Inc.', 'Santiago Stock Exchange'),
        row('APLE', 'EQUITY', 'Apple Hospitality REIT, Inc.', 'NYSE'),
        row('AAPL260918C00200000', 'OPTION', 'AAPL Sep 2026 200 call', 'OPR'),
        row('VOD.L', 'EQUITY', 'Vodafone Group Plc', 'LSE'),
        row('QQQ', 'ETF', 'Invesco QQQ Trust', 'NasdaqGM'),
        row('BTC-USD', 'CRYPTOCURRENCY', 'Bitcoin USD', 'CCC'),
        row('EURUSD=X', 'CURRENCY', 'EUR/USD', 'CCY'),
        row('^GSPC', 'INDEX', 'S&P 500', 'SNP'),
        row('VFIAX', 'MUTUALFUND', 'Vanguard 500 Index Fund', 'Nasdaq'),
      ],
      news: [],
    };
    expect(
      parseSearch(body).map((m) => [
        m.instrument.symbol,
        m.instrument.assetClass,
        m.instrument.market ?? null,
        m.name,
        m.exchange,
      ]),
    ).toEqual([
      ['AAPL', 'equity', 'US', 'Apple Inc.', 'NASDAQ'],
      ['APLE', 'equity', 'US', 'Apple Hospitality REIT, Inc.', 'NYSE'],
      ['VOD', 'equity', 'UK', 'Vodafone Group Plc', 'LSE'],
      ['QQQ', 'etf', 'US', 'Invesco QQQ Trust', 'NasdaqGM'],
      ['BTC/USD', 'crypto', null, 'Bitcoin USD', 'CCC'],
      ['EUR/USD', 'fx', null, 'EUR/USD', 'CCY'],
      ['^GSPC', 'index', null, 'S&P 500', 'SNP'],
    ]);
  });

  it('answers no quotes with no matches and refuses a body without quotes', () => {
    expect(parseSearch({ quotes: [], news: [] })).toEqual([]);
    expect(kindOf(() => parseSearch({ finance: { error: 'x' } }))).toBe('bad_response');
  });
});
