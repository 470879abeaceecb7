import { describe, expect, it } from 'vitest';
import {
  describeWithFixtures,
  fixtureJson,
  itWithFixtures,
  loadFixture,
} from '../../../test/support/fixtures.ts';
import { KNOWN_COINS, parseInstrument } from '../instruments.ts';
import {
  aggregate,
  COIN_IDS,
  coinGeckoError,
  coinPair,
  inRange,
  parseOhlc,
  quoteFromSimplePrice,
  responseTime,
  statsFromMarkets,
  vsCurrency,
} from './coingecko.parse.ts';
import { ProviderError } from './provider-errors.ts';

const BTC_USD = parseInstrument('BTC/USD');
const BITCOIN_USD = { id: 'bitcoin', vs: 'usd' };
const H4 = 14_400_000;

function recordedTime(file: string): Date | null {
  const { headers } = loadFixture(file);
  return responseTime(headers.date ? new Date(headers.date) : null, headers.age);
}

describe('ids and currencies', () => {
  it('has a CoinGecko id for every coin Vigil recognises', () => {
    expect([...KNOWN_COINS].filter((coin) => !COIN_IDS[coin])).toEqual([]);
  });

  it('prices stablecoin quotes in USD and refuses unknown coins and quotes', () => {
    expect(coinPair(parseInstrument('BTC/USDT'))).toEqual(BITCOIN_USD);
    expect(coinPair(parseInstrument('ETH/EUR'))).toEqual({ id: 'ethereum', vs: 'eur' });
    expect(coinPair(parseInstrument('SOL/BTC'))).toEqual({ id: 'solana', vs: 'btc' });
    expect(coinPair(parseInstrument('NKN/USDT'))).toBeUndefined();
    expect(coinPair(parseInstrument('BTC/XYZ'))).toBeUndefined();
    expect(coinPair(parseInstrument('AAPL'))).toBeUndefined();
    expect(vsCurrency('FDUSD')).toBe('usd');
  });

  it('dates a cached answer by Date minus Age', () => {
    expect(responseTime(new Date('2021-05-15T13:42:23Z'), '3')).toEqual(new Date('2021-05-15T13:42:20Z'));
    expect(responseTime(new Date('2021-05-15T13:42:23Z'), undefined)).toEqual(
      new Date('2021-05-15T13:42:23Z'),
    );
    expect(responseTime(null, '3')).toBeNull();
  });
});

describe('/simple/price', () => {
  const file = 'coingecko/simple-price-ids-bitcoin-vs-usd.json';

  itWithFixtures(
    'reads the recorded price; without the include_* fields change is unknown and time is the response time',
    () => {
      const quote = quoteFromSimplePrice(fixtureJson(file), BTC_USD, BITCOIN_USD, recordedTime(file));
      expect(quote).toEqual({
        symbol: 'BTC/USD',
        price: 49013,
        change: null,
        changePercent: null,
        previousClose: null,
        open: null,
        dayHigh: null,
        dayLow: null,
        volume: null,
        currency: 'USD',
        asOf: new Date('2021-05-15T13:42:20Z'),
        marketState: 'continuous',
      });
    },
  );

  itWithFixtures(
    'derives the reference price from the 24 h change and takes last_updated_at as the time',
    () => {
      // The documented include_* shape, filled with the /coins/markets recording's values for bitcoin.
      const market = fixtureJson<Array<Record<string, number | string>>>(
        'coingecko/coins-markets-ids-bitcoin-vs-usd.json',
      )[0]!;
      const updatedAt = Math.floor(Date.parse(String(market.last_updated)) / 1000);
      const body = {
        bitcoin: {
          usd: market.current_price,
          usd_24h_vol: market.total_volume,
          usd_24h_change: market.price_change_percentage_24h,
          last_updated_at: updatedAt,
        },
      };
      const quote = quoteFromSimplePrice(body, parseInstrument('BTC/USDT'), BITCOIN_USD, null);
      expect(quote.symbol).toBe('BTC/USDT');
      expect(quote.currency).toBe('USD');
      expect(quote.asOf).toEqual(new Date(updatedAt * 1000));
      expect(quote.changePercent).toBe(-4.37931);
      expect(quote.previousClose).toBeCloseTo(49053 / (1 - 0.0437931), 6);
      expect(quote.change).toBeCloseTo(49053 - quote.previousClose!, 9);
      // CoinGecko's own absolute change for the same window agrees to within a dollar.
      expect(Math.abs(quote.change! - Number(market.price_change_24h))).toBeLessThan(1);
      // Volume in coins is not reported (only in the vs_currency), so it stays unknown.
      expect(quote.volume).toBeNull();
    },
  );

  it('says unknown for `{}` and for a coin without the asked currency', () => {
    const unknown = (body: unknown) => {
      try {
        quoteFromSimplePrice(body, BTC_USD, BITCOIN_USD, new Date());
      } catch (error) {
        return (error as ProviderError).kind;
      }
      return 'answered';
    };
    expect(unknown({})).toBe('unknown_symbol');
    expect(unknown({ bitcoin: {} })).toBe('unknown_symbol');
    expect(unknown({ bitcoin: { usd: 'n/a' } })).toBe('bad_response');
    expect(unknown({ bitcoin: { usd: 0 } })).toBe('bad_response');
    expect(unknown([])).toBe('bad_response');
  });

  itWithFixtures('will not make up a time', () => {
    expect(() => quoteFromSimplePrice(fixtureJson(file), BTC_USD, BITCOIN_USD, null)).toThrow(/Date header/);
  });
});

describe('/coins/markets', () => {
  const file = 'coingecko/coins-markets-ids-bitcoin-vs-usd.json';

  itWithFixtures('gives 24 h statistics with market cap and quote volume (base volume unknown)', () => {
    const stats = statsFromMarkets(fixtureJson(file), BTC_USD, BITCOIN_USD, recordedTime(file));
    expect(stats).toEqual({
      symbol: 'BTC/USD',
      venue: 'coingecko',
      lastPrice: 49053,
      priceChange: -2246.57482218,
      priceChangePercent: -4.37931,
      high: 51300,
      low: 48019,
      volume: null,
      quoteVolume: 61679663434,
      marketCap: 917825524991,
      asOf: new Date('2021-05-15T15:59:43.867Z'),
    });
  });

  itWithFixtures('drops a market cap that is not in USD and says unknown for an empty list', () => {
    const inEur = statsFromMarkets(
      fixtureJson(file),
      parseInstrument('BTC/EUR'),
      { id: 'bitcoin', vs: 'eur' },
      null,
    );
    expect(inEur.marketCap).toBeNull();
    expect(() => statsFromMarkets([], BTC_USD, BITCOIN_USD, null)).toThrow(/unknown symbol/);
  });
});

describeWithFixtures('/coins/{id}/ohlc', () => {
  const body = fixtureJson<number[][]>('coingecko/coins-bitcoin-ohlc-days7-usd.json');

  it('turns 42 close-stamped 4 h candles into bars stamped with their open time, volume null', () => {
    const bars = parseOhlc(body, H4);
    expect(bars).toHaveLength(42);
    expect(bars[0]).toEqual({
      time: new Date('2021-05-08T16:00:00Z'),
      open: 57945.79,
      high: 59122.18,
      low: 57945.79,
      close: 59122.18,
      volume: null,
    });
    expect(bars.at(-1)!.time).toEqual(new Date('2021-05-15T12:00:00Z'));
    for (let i = 1; i < bars.length; i++) {
      expect(bars[i]!.time.getTime() - bars[i - 1]!.time.getTime()).toBe(H4);
    }
  });

  it('sorts, and folds a repeated candle stamped a moment early into its period', () => {
    // The market_chart recording ends with a point 955 ms before the previous one; same shape here.
    const last = body.at(-1)!;
    const quirky = [...body.slice(0, -1), last, [last[0]! - 955, ...last.slice(1)]].reverse();
    const bars = parseOhlc(quirky, H4);
    expect(bars).toEqual(parseOhlc(body, H4));
  });

  it('refuses candles whose spacing contradicts the expected granularity', () => {
    expect(() => parseOhlc(body, 1_800_000)).toThrow(/expected/);
    expect(() =>
      parseOhlc(
        body.filter((_, i) => i % 2 === 0),
        H4,
      ),
    ).toThrow(/expected/);
    expect(() => parseOhlc([[1620504000000, 1, 2]], H4)).toThrow(/not \[t,o,h,l,c\]/);
  });

  it('merges complete sets of six 4 h candles into daily bars and skips incomplete days', () => {
    const candles = parseOhlc(body, H4);
    const days = aggregate(candles, H4, 86_400_000);
    expect(days.map((d) => d.time.toISOString().slice(0, 10))).toEqual([
      '2021-05-09',
      '2021-05-10',
      '2021-05-11',
      '2021-05-12',
      '2021-05-13',
      '2021-05-14',
    ]);
    const may9 = candles.filter((c) => c.time.toISOString().startsWith('2021-05-09'));
    expect(may9).toHaveLength(6);
    expect(days[0]).toEqual({
      time: new Date('2021-05-09T00:00:00Z'),
      open: may9[0]!.open,
      high: Math.max(...may9.map((c) => c.high)),
      low: Math.min(...may9.map((c) => c.low)),
      close: may9[5]!.close,
      volume: null,
    });
    const gap = candles.filter((c) => c.time.toISOString() !== '2021-05-10T08:00:00.000Z');
    expect(aggregate(gap, H4, 86_400_000).map((d) => d.time.getUTCDate())).toEqual([9, 11, 12, 13, 14]);
    expect(inRange(days, new Date('2021-05-10T00:00:00Z'), new Date('2021-05-12T00:00:00Z'))).toHaveLength(2);
  });
});

describe('error answers', () => {
  itWithFixtures('maps 404 to unknown_symbol and the recorded 422 to a refusal', () => {
    expect(coinGeckoError(200, {}, 'BTC/USD')).toBeUndefined();
    expect(coinGeckoError(404, { error: 'coin not found' }, 'X/USD')?.kind).toBe('unknown_symbol');
    const missing = loadFixture('coingecko/simple-price-error-422-missing-params.json');
    const refused = coinGeckoError(missing.status, JSON.parse(missing.body), 'BTC/USD');
    expect(refused).toBeInstanceOf(ProviderError);
    expect(refused?.kind).toBe('bad_response');
    expect(refused?.message).toMatch(/Missing parameter ids/);
  });
});
