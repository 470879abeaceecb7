import { z } from 'zod';
import { definePrompt } from '../platform/mcp/mcp-prompt.ts';
import { resolveInstrument } from './instruments.ts';
import type { Instrument } from './types.ts';

/** A symbol a prompt was given: as the user wrote it (upper-cased) and as Vigil reads it. */
export interface PromptSymbol {
  readonly written: string;
  readonly instrument: Instrument;
}

/**
 * A prompt's `symbol` argument, checked as the tools check a symbol (so a prompt never fills in
 * a symbol the tools it names would refuse). Macro series have no quote: the FK-DSL's MACRO reads
 * them.
 */
export const symbolPromptArgument = z
  .string()
  .max(40, { error: 'at most 40 characters' })
  .transform((value, ctx): PromptSymbol => {
    const written = value.toUpperCase();
    try {
      const instrument = resolveInstrument(written);
      if (instrument.assetClass === 'macro') {
        ctx.addIssue({ code: 'custom', message: `${written} is a macro series, not a quoted instrument` });
        return z.NEVER;
      }
      return { written, instrument };
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: (error as Error).message.replace(/^symbol: /, '') });
      return z.NEVER;
    }
  })
  .describe('Ticker or pair as the tools take it: AAPL, BRK.B, VOD.L, ^GSPC, EURUSD=X, BTC/USDT');

/** The data tool for an instrument: crypto pairs have their own (exchange, order book, funding). */
export function searchToolOf(symbol: PromptSymbol): 'search-by-coin' | 'search-by-symbol' {
  return symbol.instrument.assetClass === 'crypto' ? 'search-by-coin' : 'search-by-symbol';
}

/** A symbol written into an FK-DSL query: always quoted, so `ON` or `3M` cannot read as a keyword. */
export function fkDslSymbol(symbol: PromptSymbol): string {
  return JSON.stringify(symbol.written);
}

/** A call written as the agent should make it: the tool, then its arguments as JSON. */
export function toolCall(tool: string, args: Readonly<Record<string, unknown>>): string {
  return `\`${tool}\` with ${JSON.stringify(args)}`;
}

/** FK-DSL windows: days, weeks, months or years (see docs/fk-dsl.md), at most ten years. */
const windowArgument = z
  .string()
  .regex(/^[1-9][0-9]{0,3}[dwmy]$/i, { error: 'a window like 30d, 12w, 6m or 1y' })
  .transform((w) => w.toLowerCase())
  .optional()
  .describe('Window of the risk and return figures: 30d, 12w, 6m, 1y (default 90d)');

/**
 * The window as get-price-history's lookback, which reads `m` as minutes: months become days (an
 * FK-DSL month is 21 sessions, about 30 calendar days).
 */
function lookbackOf(window: string): string {
  const n = Number(window.slice(0, -1));
  return window.endsWith('m') ? `${n * 30}d` : window;
}

/**
 * `analyse-symbol`: what an analyst asks first about one instrument, as tool calls. The data
 * tool gives the quote, statistics, technicals and recent bars with their lineage; the price
 * history gives the daily bars over the window; one FK-DSL statement adds the risk and return
 * figures over the window with their units.
 */
export const analyseSymbolPrompt = definePrompt({
  name: 'analyse-symbol',
  title: 'Analyse a symbol',
  description:
    'Steps and tool calls for an analysis of one instrument: quote, statistics, technicals, risk and return over a window.',
  arguments: { symbol: symbolPromptArgument, window: windowArgument },
  tools: ['search-by-symbol', 'search-by-coin', 'search-instruments', 'get-price-history', 'execute-fk-dsl'],
  text: ({ symbol, window = '90d' }) => {
    const search = searchToolOf(symbol);
    const s = fkDslSymbol(symbol);
    const query =
      `EVALUATE ${s}: PRICE, CHANGE, PRICE_CHANGE(${window}), VOLATILITY(${window}), DRAWDOWN(${window}), ` +
      `SHARPE(${window}), BETA, TECHNICAL(RSI, MACD, BOLLINGER_BANDS, SMA(50), SMA(200))`;
    return [
      `Analyse ${symbol.written} (${symbol.instrument.assetClass}) with Vigil's tools, in this order:`,
      '',
      `1. ${toolCall(search, { symbol: symbol.written, depth: 'deep' })}: the name, the latest quote (\`cached\`), ` +
        'key statistics, technicals (RSI, moving averages, MACD, volatility, trend), the last 30 daily bars, and ' +
        'where each value came from (`data_lineage`). If it answers UNKNOWN_SYMBOL, ' +
        `${toolCall('search-instruments', { query: symbol.written })} finds what was meant: ask which one.`,
      `2. ${toolCall('get-price-history', { symbol: symbol.written, interval: '1d', lookback: lookbackOf(window) })}: ` +
        'the daily bars over the window (oldest first; pass `next_cursor` back as `after` for the next page), ' +
        'for the range, the largest moves and the volume behind them.',
      `3. ${toolCall('execute-fk-dsl', { query })}: price change, volatility, drawdown and Sharpe ratio over ` +
        `${window}, beta, and the indicators, each with its unit, window and as_of. Percent figures are in ` +
        'percent. A metric whose value is null has an `error` saying why; a window the query refuses names ' +
        'its limit: run it again with a longer window.',
      '',
      'Then answer in a few paragraphs: what the instrument is and its latest price; the trend and momentum ' +
        '(price against its 50 and 200 day averages, RSI, MACD); the risk (volatility, drawdown, beta) and ' +
        'the return for that risk (Sharpe); and what to watch. Give each figure with its as_of and provider. ' +
        'Never fill in a value a tool left null. If any lineage says `simulated: true`, say first that the ' +
        'data is simulated and describes no real market.',
      '',
      `To follow the price afterwards, read or subscribe to the resource vigil://prices/${encodeURIComponent(symbol.written)}.`,
    ].join('\n');
  },
});
