import { describe, expect, it } from 'vitest';
import { describeWithFixtures, fixtureJson, itWithFixtures } from '../../../test/support/fixtures.ts';
import { parseInstrument } from '../instruments.ts';
import {
  barsInRange,
  binanceError,
  binanceSymbol,
  decimal,
  depthLimitFor,
  FUTURES_QUOTES,
  parseAggTrades,
  parseDepth,
  parseKlines,
  parsePremiumIndex,
  parseTicker24h,
  quoteFromTicker,
  statsFromTicker,
  tradeFromAgg,
  USD_QUOTES,
} from './binance.parse.ts';
import {
  parseCombined,
  parseControlReply,
  parseKlineEvent,
  parseTradeEvent,
  tickFromTrade,
} from './binance.stream-parse.ts';
import { ProviderError } from './provider-errors.ts';

const BTC_USDT = parseInstrument('BTC/USDT');
const ticker = () => fixtureJson('binance/api-v3-ticker-24hr-BTCUSDT.json');

describe('symbols', () => {
  it('joins base and quote for quote assets Binance lists, and refuses USD', () => {
    expect(binanceSymbol(BTC_USDT)).toBe('BTCUSDT');
    expect(binanceSymbol(parseInstrument('ETH/BTC'))).toBe('ETHBTC');
    expect(binanceSymbol(parseInstrument('BTC/USD'))).toBeUndefined();
    expect(binanceSymbol(parseInstrument('AAPL'))).toBeUndefined();
    expect(binanceSymbol(parseInstrument('BTC/FDUSD'), FUTURES_QUOTES)).toBeUndefined();
  });

  it('picks the smallest depth limit Binance accepts', () => {
    expect([1, 5, 6, 10, 11, 100, 101, 999, 5000].map(depthLimitFor)).toEqual([
      5, 5, 10, 10, 20, 100, 500, 1000, 1000,
    ]);
  });

  it('reads decimal strings and numbers, keeps absence as null and rejects the rest', () => {
    expect(decimal('60755.18000000', 'x')).toBe(60755.18);
    expect(decimal(-3.003, 'x')).toBe(-3.003);
    expect(decimal(undefined, 'x')).toBeNull();
    for (const bad of ['', 'abc', '1,5', {}, Number.NaN]) {
      expect(() => decimal(bad, 'x')).toThrow(/not a number/);
    }
  });
});

describeWithFixtures('24hr ticker', () => {
  it('makes a quote whose reference is the window open and whose time is closeTime', () => {
    const quote = quoteFromTicker(parseTicker24h(ticker()), BTC_USDT);
    expect(quote).toMatchObject({
      symbol: 'BTC/USDT',
      price: 60755.18,
      open: 62636.13,
      dayHigh: 63732.39,
      dayLow: 60000,
      volume: 53076.8465,
      currency: 'USDT',
      changePercent: -3.003,
      asOf: new Date(1634944401452),
      marketState: 'continuous',
    });
    expect(quote.previousClose).toBeCloseTo(62636.13, 8);
    expect(quote.change).toBeCloseTo(-1880.95, 8);
  });

  it('makes 24 h statistics with the quote volume and no market cap', () => {
    const stats = statsFromTicker(parseTicker24h(ticker()), BTC_USDT);
    expect(stats).toEqual({
      symbol: 'BTC/USDT',
      venue: 'binance',
      lastPrice: 60755.18,
      priceChange: -1880.95,
      priceChangePercent: -3.003,
      high: 63732.39,
      low: 60000,
      volume: 53076.8465,
      quoteVolume: Number('3289695271.67717710'),
      marketCap: null,
      asOf: new Date('2021-10-22T23:13:21.452Z'),
    });
  });

  it('refuses a ticker without a price or time instead of filling in zeros', () => {
    const { lastPrice: _, ...noPrice } = ticker() as Record<string, unknown>;
    expect(() => parseTicker24h(noPrice)).toThrow(/lastPrice is missing/);
    expect(() => parseTicker24h({ ...(ticker() as object), closeTime: 'soon' })).toThrow(ProviderError);
    const { volume: __, ...noVolume } = ticker() as Record<string, unknown>;
    expect(quoteFromTicker(parseTicker24h(noVolume), BTC_USDT).volume).toBeNull();
    expect(() => statsFromTicker(parseTicker24h(noVolume), BTC_USDT)).toThrow(/volume is missing/);
  });
});

describeWithFixtures('klines', () => {
  const bars = parseKlines(fixtureJson('binance/api-v3-klines-BTCUSDT-1m-limit10.json'));

  it('parses 12-field arrays with string prices, stamped with the open time', () => {
    expect(bars).toHaveLength(10);
    expect(bars[0]).toEqual({
      time: new Date('2021-10-22T23:03:00Z'),
      open: 60685.22,
      high: 60729.84,
      low: 60670.9,
      close: 60719.27,
      volume: 21.63272,
    });
    expect(bars[9]!.time).toEqual(new Date('2021-10-22T23:12:00Z'));
    expect(bars[9]!.volume).toBe(0.04734);
  });

  it('keeps bars inside [start, end), sorted, once each (pages overlap at the seams)', () => {
    const start = new Date('2021-10-22T23:05:00Z');
    const end = new Date('2021-10-22T23:08:00Z');
    const picked = barsInRange([...bars].reverse().concat(bars), start, end);
    expect(picked.map((b) => b.time.toISOString())).toEqual([
      '2021-10-22T23:05:00.000Z',
      '2021-10-22T23:06:00.000Z',
      '2021-10-22T23:07:00.000Z',
    ]);
  });

  it('rejects rows that are not klines', () => {
    expect(() => parseKlines({})).toThrow(/not an array/);
    expect(() => parseKlines([[1634943780000, '1']])).toThrow(/kline 0/);
  });
});

describeWithFixtures('depth', () => {
  const body = fixtureJson('binance/api-v3-depth-BTCUSDT-limit10.json');

  it('parses levels best first and cuts to the depth asked', () => {
    const book = parseDepth(body, 10);
    expect(book.bids).toHaveLength(10);
    expect(book.asks).toHaveLength(10);
    expect(book.bids[0]).toEqual({ price: 60650, size: 0.00213 });
    expect(book.asks[0]).toEqual({ price: 60650.01, size: 0.61982 });
    expect(book.bids[0]!.price).toBeLessThan(book.asks[0]!.price);
    expect(parseDepth(body, 3).asks.map((l) => l.price)).toEqual([60650.01, 60653.68, 60653.69]);
  });
});

describeWithFixtures('premiumIndex (documentation sample)', () => {
  it('gives the running funding rate per 8 h with mark price and next funding time', () => {
    const body = fixtureJson('binance/fapi-v1-premiumIndex-BTCUSDT.DOCS-SAMPLE.json');
    expect(parsePremiumIndex(body, BTC_USDT)).toEqual({
      symbol: 'BTC/USDT',
      venue: 'binance',
      rate: 0.00038246,
      intervalHours: 8,
      markPrice: 11793.63104562,
      nextFundingTime: new Date(1597392000000),
      asOf: new Date(1597370495002),
    });
  });
});

describeWithFixtures('aggTrades', () => {
  // The REST record is the stream's aggTrade payload without the event fields e, E and s.
  const recorded = () => {
    const {
      e: _,
      E: __,
      s: ___,
      ...rest
    } = parseCombined(fixtureJson('binance/ws-spot-aggTrade-NKNUSDT.json'))!.data;
    return rest;
  };
  const NKN_USDT = parseInstrument('NKN/USDT');

  it('parses the recorded record and values it in its USD-stablecoin quote', () => {
    const [agg] = parseAggTrades([recorded()]);
    expect(agg).toEqual({
      id: 15683430,
      price: 0.3528,
      quantity: 58,
      time: new Date(1633998523963),
      buyerIsMaker: false,
    });
    const trade = tradeFromAgg(agg!, NKN_USDT);
    expect(trade).toMatchObject({ id: '15683430', symbol: 'NKN/USDT', venue: 'binance', side: 'buy' });
    expect(trade.usdValue).toBeCloseTo(0.3528 * 58, 10);
    expect(USD_QUOTES.has('USDT') && !USD_QUOTES.has('BTC')).toBe(true);
  });

  it('takes the aggressor side from the maker flag: buyer is maker means a sell', () => {
    const [agg] = parseAggTrades([{ ...recorded(), m: true }]);
    expect(tradeFromAgg(agg!, NKN_USDT).side).toBe('sell');
  });

  it('refuses records without id, price, time or maker flag', () => {
    expect(() => parseAggTrades({})).toThrow(/aggTrades is not an array/);
    expect(() => parseAggTrades([{ ...recorded(), a: undefined }])).toThrow(/aggTrade 0 id is missing/);
    expect(() => parseAggTrades([recorded(), { ...recorded(), a: 1.5 }])).toThrow(/aggTrade 1 id/);
    expect(() => parseAggTrades([{ ...recorded(), p: 'n/a' }])).toThrow(/aggTrade 0 price/);
    expect(() => parseAggTrades([{ ...recorded(), T: undefined }])).toThrow(/aggTrade 0 time is missing/);
    expect(() => parseAggTrades([{ ...recorded(), m: 'false' }])).toThrow(/maker flag/);
  });
});

describe('error answers', () => {
  it('maps invalid symbol to unknown_symbol and 418 to rate_limited with its Retry-After', () => {
    expect(binanceError(200, {}, 'BTC/USDT', undefined)).toBeUndefined();
    expect(binanceError(400, { code: -1121, msg: 'Invalid symbol.' }, 'NOPE/USDT', undefined)?.kind).toBe(
      'unknown_symbol',
    );
    const banned = binanceError(418, { code: -1003, msg: 'Way too many requests' }, 'BTC/USDT', 120_000);
    expect(banned?.kind).toBe('rate_limited');
    expect(banned?.details.retryAfterMs).toBe(120_000);
    const refused = binanceError(400, { code: -1120, msg: 'Invalid interval.' }, 'BTC/USDT', undefined);
    expect(refused?.kind).toBe('bad_response');
    expect(refused?.transient).toBe(false);
  });
});

describe('stream payloads', () => {
  itWithFixtures('parses a combined trade event without the removed b/a fields', () => {
    const envelope = parseCombined(fixtureJson('binance/ws-spot-trade-ETHUSDT.json'));
    expect(envelope?.stream).toBe('ethusdt@trade');
    const { b: _, a: __, ...withoutOrderIds } = envelope!.data;
    for (const data of [envelope!.data, withoutOrderIds]) {
      const tick = tickFromTrade(parseTradeEvent(data), parseInstrument('ETH/USDT'));
      expect(tick).toEqual({
        symbol: 'ETH/USDT',
        price: 4149.74,
        size: 0.4387,
        asOf: new Date(1639351062243),
      });
    }
  });

  itWithFixtures('parses an aggTrade event with its trade time', () => {
    const envelope = parseCombined(fixtureJson('binance/ws-spot-aggTrade-NKNUSDT.json'));
    expect(envelope?.stream).toBe('nknusdt@aggTrade');
    expect(parseTradeEvent(envelope!.data)).toEqual({
      symbol: 'NKNUSDT',
      price: 0.3528,
      quantity: 58,
      time: new Date(1633998523963),
    });
  });

  itWithFixtures('parses an open kline event', () => {
    const envelope = parseCombined(fixtureJson('binance/ws-spot-kline_1m-NKNUSDT-open.json'));
    expect(parseKlineEvent(envelope!.data)).toEqual({
      symbol: 'NKNUSDT',
      interval: '1m',
      closed: false,
      eventTime: new Date(1633998523963),
      bar: {
        time: new Date(1633998480000),
        open: 0.3527,
        high: 0.3528,
        low: 0.3522,
        close: 0.3528,
        volume: 25877,
      },
    });
  });

  itWithFixtures('refuses events that are not what they should be', () => {
    const kline = parseCombined(fixtureJson('binance/ws-spot-kline_1m-NKNUSDT-open.json'))!.data;
    expect(() => parseTradeEvent(kline)).toThrow(/not a trade/);
    const ticker24h = fixtureJson<Record<string, unknown>>(
      'binance/ws-spot-24hrTicker-BNBBTC.DOCS-SAMPLE.json',
    );
    expect(parseCombined(ticker24h)).toBeUndefined();
    expect(() => parseKlineEvent(ticker24h)).toThrow(/not a kline/);
    const trade = parseCombined(fixtureJson('binance/ws-spot-trade-ETHUSDT.json'))!.data;
    expect(() => parseTradeEvent({ ...trade, p: undefined })).toThrow(/trade price is missing/);
  });

  it('recognises subscription replies and errors', () => {
    expect(parseControlReply({ result: null, id: 3 })).toEqual({ id: 3, error: undefined });
    expect(parseControlReply({ code: 2, msg: 'Invalid request', id: 4 })).toEqual({
      id: 4,
      error: 'Invalid request (code 2)',
    });
    expect(parseControlReply({ error: { code: 1, msg: 'Invalid value' }, id: 5 })?.error).toMatch(
      /Invalid value/,
    );
    expect(parseControlReply({ stream: 'x', data: {} })).toBeUndefined();
  });
});
