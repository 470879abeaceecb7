import { describe, expect, it } from 'vitest';
import { attemptOf, MarketDataUnavailableError, UnknownSymbolError } from './market-data.errors.ts';
import { binanceError } from './providers/binance.parse.ts';
import { coinGeckoError } from './providers/coingecko.parse.ts';
import { ProviderError, unknownSymbol, unsupported } from './providers/provider-errors.ts';

const HTML_404 =
  '<!DOCTYPE html><html><head><title>404 Not Found</title></head><body><h1>Not Found</h1>' +
  `<p>${'padding '.repeat(200)}</p></body></html>`;

describe('market-data errors keep what each provider said', () => {
  it("UNKNOWN_SYMBOL names each provider with its own reason, and only those that don't know it", () => {
    const error = new UnknownSymbolError(
      'ZZZ/USDT',
      [
        unknownSymbol(
          'yahoo',
          'ZZZ/USDT',
          "Data doesn't exist for startDate = 1577836800, endDate = 1578009600",
        ),
        binanceError(400, { code: -1121, msg: 'Invalid symbol.' }, 'ZZZ/USDT', undefined)!,
        unsupported('finnhub', 'crypto instruments'),
      ].map(attemptOf),
    );
    expect(error.code).toBe('UNKNOWN_SYMBOL');
    expect(error.message).toBe(
      "unknown symbol ZZZ/USDT: no provider knows it (yahoo: Data doesn't exist for startDate = 1577836800, " +
        'endDate = 1578009600; binance: Invalid symbol.)',
    );
    // The details keep their shape: every attempt, each with its full message.
    expect(error.details?.attempts).toEqual([
      expect.objectContaining({ provider: 'yahoo', kind: 'unknown_symbol' }),
      {
        provider: 'binance',
        kind: 'unknown_symbol',
        error: 'binance: unknown symbol ZZZ/USDT (Invalid symbol.)',
      },
      { provider: 'finnhub', kind: 'unsupported', error: 'finnhub: does not provide crypto instruments' },
    ]);
  });

  it('never repeats an HTML page or a credential, and stays bounded', () => {
    const html = coinGeckoError(404, HTML_404, 'ZZZ/USD')!;
    const keyed = unknownSymbol(
      'alphavantage',
      'ZZZ',
      `Invalid API call: https://www.alphavantage.co/query?function=GLOBAL_QUOTE&symbol=ZZZ&apikey=K3Y ${'x'.repeat(500)}`,
    );
    const many = Array.from({ length: 8 }, (_, i) => unknownSymbol(`p${i}`, 'ZZZ', 'y'.repeat(400)));
    const error = new UnknownSymbolError('ZZZ', [html, keyed, ...many].map(attemptOf));
    expect(error.message).toContain('coingecko: (an HTML page: 404 Not Found)');
    expect(error.message).toContain('apikey=***');
    expect(error.message).not.toMatch(/<|K3Y/);
    expect(error.message.length).toBeLessThanOrEqual(600);
    expect(JSON.stringify(error.details)).not.toMatch(/<html|<body|K3Y/);
    expect(html.message.length).toBeLessThanOrEqual(300 + 'coingecko: '.length);
  });

  it('MARKET_DATA_UNAVAILABLE says how each provider failed and why', () => {
    const error = new MarketDataUnavailableError('quotes', 'AAPL', [
      new ProviderError('yahoo', 'upstream', `upstream error (503): ${HTML_404}`, { status: 503 }),
      new ProviderError('finnhub', 'rate_limited', 'rate limited (429): API limit reached', {
        retryAfterMs: 2_000,
      }),
    ]);
    expect(error.message).toBe(
      'quotes for AAPL is unavailable: every provider failed (yahoo: upstream, upstream error (503): ' +
        '(an HTML page: 404 Not Found); finnhub: rate_limited, rate limited (429): API limit reached)',
    );
  });
});
