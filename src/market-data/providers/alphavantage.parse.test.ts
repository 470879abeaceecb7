import { describe, expect, it } from 'vitest';
import { describeWithFixtures, fixtureJson, itWithFixtures } from '../../../test/support/fixtures.ts';
import { wallClockToUtc } from '../markets.ts';
import {
  avNumber,
  expectData,
  parseDailySeries,
  parseEarnings,
  parseGlobalQuote,
} from './alphavantage.parse.ts';
import { ProviderError } from './provider-errors.ts';

function errorOf(run: () => unknown): ProviderError {
  try {
    run();
  } catch (error) {
    if (error instanceof ProviderError) return error;
    throw error;
  }
  throw new Error('expected a ProviderError');
}

describe('alphavantage numbers', () => {
  it('reads numeric strings, percent suffixes and None', () => {
    expect(['121.7400', '0.4207%', '-8.3333', 'None', '', '-', 12, 'abc', null].map(avNumber)).toEqual([
      121.74,
      0.4207,
      -8.3333,
      null,
      null,
      null,
      12,
      null,
      null,
    ]);
  });

  it('places wall-clock times in New York, DST included', () => {
    expect(wallClockToUtc('2020-05-08', 16 * 60, 'America/New_York')?.toISOString()).toBe(
      '2020-05-08T20:00:00.000Z',
    );
    expect(wallClockToUtc('2020-01-21', 16 * 60, 'America/New_York')?.toISOString()).toBe(
      '2020-01-21T21:00:00.000Z',
    );
    // The day DST started (02:00 local): the open is already on daylight time.
    expect(wallClockToUtc('2020-03-08', 9 * 60 + 30, 'America/New_York')?.toISOString()).toBe(
      '2020-03-08T13:30:00.000Z',
    );
    expect(wallClockToUtc('2020-5-8', 0, 'America/New_York')).toBeNull();
  });
});

describeWithFixtures('alphavantage GLOBAL_QUOTE', () => {
  const GLOBAL_QUOTE = fixtureJson('alphavantage/GLOBAL_QUOTE-IBM.json');

  it('reads the IBM quote; asOf is the trading day close in New York', () => {
    const quote = parseGlobalQuote(GLOBAL_QUOTE, 'IBM', null);
    expect(quote).toEqual({
      symbol: 'IBM',
      price: 121.74,
      change: 0.51,
      changePercent: 0.4207,
      previousClose: 121.23,
      open: 122.67,
      dayHigh: 122.8,
      dayLow: 121.06,
      volume: 2_528_814,
      currency: 'USD',
      asOf: new Date('2020-05-08T20:00:00Z'),
    });
  });

  it('caps asOf at the response time while the session is still open', () => {
    const answeredAt = new Date('2020-05-08T18:07:03Z');
    expect(parseGlobalQuote(GLOBAL_QUOTE, 'IBM', answeredAt).asOf).toEqual(answeredAt);
    const nextDay = new Date('2020-05-09T10:00:00Z');
    expect(parseGlobalQuote(GLOBAL_QUOTE, 'IBM', nextDay).asOf).toEqual(new Date('2020-05-08T20:00:00Z'));
  });

  it('says an empty Global Quote is an unknown symbol', () => {
    expect(errorOf(() => parseGlobalQuote({ 'Global Quote': {} }, 'NOPE', null)).kind).toBe('unknown_symbol');
  });
});

describe('alphavantage soft errors', () => {
  itWithFixtures('maps the premium-endpoint Information body to unauthorized', () => {
    const PREMIUM = fixtureJson(
      'alphavantage/Information-premium-endpoint-TIME_SERIES_DAILY_ADJUSTED.cassette.json',
    );
    const error = errorOf(() => expectData(PREMIUM, 'Time Series (Daily)', 'GME'));
    expect(error.kind).toBe('unauthorized');
    expect(error.message).toContain('premium endpoint');
  });

  it('maps rate-limit messages (Note or Information) to rate_limited', () => {
    const note = {
      Note: 'Thank you for using Alpha Vantage! Our standard API call frequency is 5 calls per minute and 500 calls per day.',
    };
    expect(errorOf(() => expectData(note, 'Global Quote', 'IBM')).kind).toBe('rate_limited');
    const daily = { Information: 'Our standard API rate limit is 25 requests per day.' };
    expect(errorOf(() => expectData(daily, 'Global Quote', 'IBM')).kind).toBe('rate_limited');
  });

  it('maps Error Message to unknown_symbol and anything else to bad_response', () => {
    const invalid = { 'Error Message': 'Invalid API call. Please retry or visit the documentation.' };
    expect(errorOf(() => expectData(invalid, 'Time Series (Daily)', 'NOPE')).kind).toBe('unknown_symbol');
    expect(errorOf(() => expectData('<html>', 'Global Quote', 'IBM')).kind).toBe('bad_response');
    expect(errorOf(() => expectData({}, 'Global Quote', 'IBM')).kind).toBe('bad_response');
  });
});

describeWithFixtures('alphavantage TIME_SERIES_DAILY', () => {
  const DAILY = fixtureJson('alphavantage/TIME_SERIES_DAILY-IBM-trimmed.json');

  it('reads the daily bars ascending, each at the New York open of its date', () => {
    const bars = parseDailySeries(DAILY, 'IBM');
    expect(bars).toEqual([
      {
        time: new Date('2020-05-07T13:30:00Z'),
        open: 122.98,
        high: 123.26,
        low: 120.85,
        close: 121.23,
        volume: 4_412_047,
      },
      {
        time: new Date('2020-05-08T13:30:00Z'),
        open: 122.67,
        high: 122.8,
        low: 121.06,
        close: 121.79,
        volume: 2_538_547,
      },
    ]);
  });
});

describeWithFixtures('alphavantage EARNINGS', () => {
  const EARNINGS = fixtureJson<{ quarterlyEarnings: Array<Record<string, string>> }>(
    'alphavantage/EARNINGS-IBM.json',
  );
  const all = [new Date('1990-01-01T00:00:00Z'), new Date('2030-01-01T00:00:00Z')] as const;

  it('reads every quarterly report, ascending', () => {
    const reports = parseEarnings(EARNINGS, 'IBM', ...all);
    expect(reports).toHaveLength(EARNINGS.quarterlyEarnings.length);
    expect(reports).toHaveLength(102);
    expect(reports[0]!.reportDate.toISOString()).toBe('1996-04-17T04:00:00.000Z');
    expect(reports.at(-1)!.reportDate.toISOString()).toBe('2021-07-19T04:00:00.000Z');
  });

  it('keeps the reports of a date range with their surprise', () => {
    const reports = parseEarnings(
      EARNINGS,
      'IBM',
      new Date('2020-01-01T00:00:00Z'),
      new Date('2020-12-31T23:59:59Z'),
    );
    expect(reports.map((r) => r.reportDate.toISOString().slice(0, 10))).toEqual([
      '2020-01-21',
      '2020-04-20',
      '2020-07-20',
      '2020-10-19',
    ]);
    expect(reports[2]).toEqual({
      symbol: 'IBM',
      reportDate: new Date('2020-07-20T04:00:00Z'),
      fiscalPeriodEnd: new Date('2020-06-30T00:00:00Z'),
      reportedEps: 2.18,
      estimatedEps: 2.0851,
      surprisePercent: 4.5513,
    });
  });

  it('reads None as unknown and times reports by reportTime when the answer has it', () => {
    const latest = { ...EARNINGS.quarterlyEarnings[0]!, reportedEPS: 'None', surprisePercentage: 'None' };
    const withTime = { ...EARNINGS.quarterlyEarnings[1]!, reportTime: 'post-market' };
    const [older, newer] = parseEarnings({ quarterlyEarnings: [latest, withTime] }, 'IBM', ...all);
    expect(older!.reportDate.toISOString()).toBe('2021-04-19T21:00:00.000Z');
    expect(newer).toMatchObject({ reportedEps: null, estimatedEps: 2.2884, surprisePercent: null });
  });
});
