import { z } from 'zod';
import { toolCall } from '../market-data/analyse-symbol.mcp.ts';
import { resolveInstrument } from '../market-data/instruments.ts';
import { MAX_SYMBOLS_PER_REQUEST } from '../market-data/limits.ts';
import { definePrompt } from '../platform/mcp/mcp-prompt.ts';

/** The SCAN universes every server has (docs/fk-dsl.md). */
const NAMED_UNIVERSES = ['US', 'ETF', 'CRYPTO', 'ALL'] as const;

/**
 * What to look for: each a WHERE clause and an order that the FK-DSL accepts as written (the
 * tests run every one on the simulated market), named by what a user asks for.
 */
export const SCAN_CRITERIA = {
  oversold: { where: 'RSI < 30', order: 'RSI ASC', says: 'RSI under 30' },
  overbought: { where: 'RSI > 70', order: 'RSI DESC', says: 'RSI over 70' },
  momentum: {
    where: 'PRICE ABOVE SMA(50) AND PRICE_CHANGE(3m) > 0',
    order: 'PRICE_CHANGE(3m) DESC',
    says: 'above the 50-day average and up over three months',
  },
  'volume-spike': {
    where: 'VOLUME > AVG_VOLUME(30d) * 2',
    order: 'CHANGE DESC',
    says: 'trading more than twice the 30-day average volume',
  },
  uptrend: {
    where: 'TREND IS BULLISH AND PRICE ABOVE SMA(200)',
    order: 'PRICE_CHANGE(3m) DESC',
    says: 'a bullish trend, above the 200-day average',
  },
} as const;

type Criteria = keyof typeof SCAN_CRITERIA;
const CRITERIA = Object.keys(SCAN_CRITERIA) as [Criteria, ...Criteria[]];

/** A named universe, or symbols separated by commas (each quoted in the query). */
const universeArgument = z
  .string()
  .transform((value, ctx): string => {
    const named = value.toUpperCase();
    if ((NAMED_UNIVERSES as readonly string[]).includes(named)) return named;
    const symbols = value
      .split(',')
      .map((s) => s.trim().toUpperCase())
      .filter(Boolean);
    if (symbols.length > MAX_SYMBOLS_PER_REQUEST) {
      ctx.addIssue({ code: 'custom', message: `at most ${MAX_SYMBOLS_PER_REQUEST} symbols` });
      return z.NEVER;
    }
    for (const symbol of symbols) {
      try {
        resolveInstrument(symbol);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as Error).message.replace(/^symbol: /, '') });
        return z.NEVER;
      }
    }
    if (new Set(symbols).size !== symbols.length) {
      ctx.addIssue({ code: 'custom', message: 'names a symbol twice' });
      return z.NEVER;
    }
    return `[${symbols.map((s) => JSON.stringify(s)).join(', ')}]`;
  })
  .optional()
  .describe(`${NAMED_UNIVERSES.join(', ')} (default US), or symbols separated by commas: AAPL,MSFT,NVDA`);

/**
 * `scan-market`: a SCAN of a universe for one of a few common setups, as tool calls: the query
 * written out, then a closer look at the best matches with the data tools.
 */
export const scanMarketPrompt = definePrompt({
  name: 'scan-market',
  title: 'Scan a market',
  description:
    'Steps and tool calls to find the instruments of a universe that match a setup (oversold, momentum, ...), then look closer at the best ones.',
  arguments: {
    universe: universeArgument,
    criteria: z
      .enum(CRITERIA, { error: `one of ${CRITERIA.join(', ')}` })
      .optional()
      .describe(
        `What to look for (default oversold): ${CRITERIA.map((c) => `${c} = ${SCAN_CRITERIA[c].says}`).join('; ')}`,
      ),
    limit: z
      .string()
      .regex(/^[0-9]{1,2}$/, { error: 'a whole number from 1 to 50' })
      .transform(Number)
      .refine((n) => n >= 1 && n <= 50, { error: 'a whole number from 1 to 50' })
      .optional()
      .describe('How many matches to keep, 1 to 50 (default 10)'),
  },
  tools: ['list-universes', 'execute-fk-dsl', 'get-task-status', 'search-by-symbol', 'search-by-coin'],
  text: ({ universe = 'US', criteria = 'oversold', limit = 10 }) => {
    const { where, order, says } = SCAN_CRITERIA[criteria];
    const query = `SCAN ${universe} WHERE ${where} ORDER BY ${order} LIMIT ${limit}`;
    const named = !universe.startsWith('[');
    return [
      `Scan ${universe} for instruments ${says} (${criteria}) with Vigil's tools, in this order:`,
      '',
      named
        ? `1. ${toolCall('list-universes', {})}: how many instruments ${universe} holds, and which.`
        : '1. The universe is the list given: no need to look it up.',
      `2. ${toolCall('execute-fk-dsl', { query })}: the matching rows, best first, each metric with its ` +
        'value and unit, and `skipped`: the instruments left out and why (missing data is never guessed). ' +
        'A refusal names its limit (cost, symbols): narrow the universe or lower the limit and run it again. ' +
        'If it answers FKDSL_DEADLINE_EXCEEDED, run it with `"async": true` and poll ' +
        '`get-task-status` with the `task_id` it answers until the status is completed.',
      '3. For the first few matches (at most 5), `search-by-symbol` (crypto pairs: `search-by-coin`) with ' +
        'depth "standard": name, latest quote, key statistics and where each value came from.',
      '',
      'Then answer with a table of the matches (symbol, name, the metrics the scan used, latest price and ' +
        'its as_of), a sentence on each of the first few, and how many instruments were skipped and why. ' +
        'If nothing matched, say so and suggest a looser setup. If any lineage says `simulated: true`, say ' +
        'first that the data is simulated and describes no real market. Offer to set up a price alert on ' +
        'a match (the set-up-price-alert prompt).',
    ].join('\n');
  },
});
