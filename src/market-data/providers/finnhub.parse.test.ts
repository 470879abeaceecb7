import { describe, expect, it } from 'vitest';
import { describeWithFixtures, fixtureJson } from '../../../test/support/fixtures.ts';
import { wallClockToUtc } from '../markets.ts';
import { parseCandles, parseEarningsCalendar, parseQuote, parseSymbolSearch } from './finnhub.parse.ts';
import { ProviderError } from './provider-errors.ts';

function kindOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return error instanceof ProviderError ? error.kind : `not a ProviderError: ${String(error)}`;
  }
  return undefined;
}

describeWithFixtures('finnhub quote', () => {
  const QUOTE = fixtureJson('finnhub/quote-AAPL.json');

  it('reads the AAPL quote at the time Finnhub stamped it', () => {
    expect(parseQuote(QUOTE, 'AAPL')).toEqual({
      symbol: 'AAPL',
      price: 308.82,
      change: 3.83,
      changePercent: 1.2558,
      previousClose: 304.99,
      open: 306.12,
      dayHigh: 311.4,
      dayLow: 305.84,
      volume: null,
      currency: 'USD',
      asOf: new Date('2026-05-22T20:00:00Z'),
    });
  });

  it('says the all-zero answer is an unknown symbol', () => {
    const zeros = { c: 0, d: null, dp: null, h: 0, l: 0, o: 0, pc: 0, t: 0 };
    expect(kindOf(() => parseQuote(zeros, 'NOPE'))).toBe('unknown_symbol');
    expect(kindOf(() => parseQuote('Forbidden', 'AAPL'))).toBe('bad_response');
  });
});

describeWithFixtures('finnhub earnings calendar', () => {
  const CALENDAR = fixtureJson('finnhub/calendar-earnings-AAPL.json');
  const from = new Date('2026-05-01T00:00:00Z');
  const to = new Date('2026-08-31T00:00:00Z');

  it('reads the upcoming report: after the close, not yet reported', () => {
    expect(parseEarningsCalendar(CALENDAR, 'AAPL', from, to)).toEqual([
      {
        symbol: 'AAPL',
        // amc on 2026-07-29: 17:00 in New York (EDT).
        reportDate: new Date('2026-07-29T21:00:00Z'),
        fiscalPeriodEnd: null,
        reportedEps: null,
        estimatedEps: 1.9316,
        surprisePercent: null,
      },
    ]);
  });

  it('keeps only the asked symbol and range, and computes the surprise once reported', () => {
    expect(parseEarningsCalendar(CALENDAR, 'MSFT', from, to)).toEqual([]);
    expect(parseEarningsCalendar(CALENDAR, 'AAPL', from, new Date('2026-07-29T20:00:00Z'))).toEqual([]);
    const body = CALENDAR as { earningsCalendar: Array<Record<string, unknown>> };
    const reported = { earningsCalendar: [{ ...body.earningsCalendar[0], epsActual: 2.0, hour: 'bmo' }] };
    const [report] = parseEarningsCalendar(reported, 'AAPL', from, to);
    expect(report!.reportDate.toISOString()).toBe('2026-07-29T13:30:00.000Z');
    expect(report!.surprisePercent).toBeCloseTo(((2.0 - 1.9316) / 1.9316) * 100, 6);
  });
});

describeWithFixtures('finnhub candles', () => {
  const CANDLES = fixtureJson('finnhub/stock-candle-D.DOCS-SAMPLE.json');

  it('reads the documented daily candles, timed at the New York open of each date', () => {
    const bars = parseCandles(CANDLES, true);
    expect(bars.map((bar) => bar.time.toISOString())).toEqual([
      '2019-09-24T13:30:00.000Z',
      '2019-09-25T13:30:00.000Z',
      '2019-09-26T13:30:00.000Z',
    ]);
    expect(bars[1]).toEqual({
      time: new Date('2019-09-25T13:30:00Z'),
      open: 218.55,
      high: 221.5,
      low: 217.1402,
      close: 221.03,
      volume: 24_018_876,
    });
  });

  it('keeps intraday stamps as they are', () => {
    expect(parseCandles(CANDLES, false)[0]!.time.toISOString()).toBe('2019-09-24T04:00:00.000Z');
  });

  it('reads no_data as no bars and refuses other statuses', () => {
    expect(parseCandles({ s: 'no_data' }, true)).toEqual([]);
    expect(kindOf(() => parseCandles({ s: 'error' }, true))).toBe('bad_response');
    expect(kindOf(() => parseCandles({ s: 'ok', t: [1] }, true))).toBe('bad_response');
  });

  it('places New York wall-clock times across DST', () => {
    expect(wallClockToUtc('2026-01-15', 9 * 60 + 30, 'America/New_York')?.toISOString()).toBe(
      '2026-01-15T14:30:00.000Z',
    );
    expect(wallClockToUtc('2026-07-15', 9 * 60 + 30, 'America/New_York')?.toISOString()).toBe(
      '2026-07-15T13:30:00.000Z',
    );
  });
});

describe('finnhub symbol search', () => {
  // The shape of Finnhub's /search answer (no recording of it is kept).
  const body = {
    count: 6,
    result: [
      { description: 'APPLE INC', displaySymbol: 'AAPL', symbol: 'AAPL', type: 'Common Stock' },
      { description: 'APPLE INC', displaySymbol: 'AAPL.SW', symbol: 'AAPL.SW', type: 'Common Stock' },
      { description: 'APPLE INC', displaySymbol: 'APC.DE', symbol: 'APC.DE', type: 'Common Stock' },
      { description: 'SPDR S&P 500 ETF TRUST', displaySymbol: 'SPY', symbol: 'SPY', type: 'ETP' },
      { description: 'APPLE INC WARRANT', displaySymbol: 'AAPL.WS', symbol: 'AAPL.WS', type: 'Warrant' },
      {
        description: 'BERKSHIRE HATHAWAY INC-CL B',
        displaySymbol: 'BRK.B',
        symbol: 'BRK.B',
        type: 'Common Stock',
      },
    ],
  };

  it("reads listings and funds Vigil can write, in Finnhub's order", () => {
    expect(
      parseSymbolSearch(body).map((m) => [
        m.instrument.symbol,
        m.instrument.assetClass,
        m.instrument.market,
        m.name,
      ]),
    ).toEqual([
      ['AAPL', 'equity', 'US', 'APPLE INC'],
      ['AAPL', 'equity', 'CH', 'APPLE INC'],
      ['APC', 'equity', 'DE', 'APPLE INC'],
      ['SPY', 'etf', 'US', 'SPDR S&P 500 ETF TRUST'],
      ['BRK.B', 'equity', 'US', 'BERKSHIRE HATHAWAY INC-CL B'],
    ]);
  });

  it('refuses an answer without a result list', () => {
    expect(kindOf(() => parseSymbolSearch({ error: 'Invalid API key' }))).toBe('bad_response');
    expect(parseSymbolSearch({ count: 0, result: [] })).toEqual([]);
  });
});
