import { z } from 'zod';
import { ASSET_CLASSES } from '../market-data/types.ts';
import { fromEnumName } from '../platform/graphql/enum-values.ts';
import type { ToolDefinition } from '../platform/operations/tool.ts';
import { LIMITS } from './fk-dsl.service.ts';
import { METRIC_UNIT_DESCRIPTIONS } from './fk-dsl-values.graphql.ts';
import { STATEMENT_KIND } from './fk-dsl-wire.ts';
import type { MetricUnit } from './metrics-catalog.ts';
import { SCAN_UNIVERSES } from './universes.ts';

/**
 * What an agent reads before it writes FK-DSL: the plan of a query (`explain-fk-dsl`), the metric
 * catalogue (`list-fk-dsl-metrics`), and what SCAN and the watchdogs cover (`list-universes`).
 */

const UNITS = Object.keys(METRIC_UNIT_DESCRIPTIONS) as [MetricUnit, ...MetricUnit[]];
const UNIT = fromEnumName(UNITS);
const ASSET_CLASS = fromEnumName(ASSET_CLASSES);
const SOURCES = ['providers', 'configuration'] as const;
const SOURCE = fromEnumName(SOURCES);

interface PlanData {
  statement: string;
  kind: string;
  fetches: {
    symbol: string;
    assetClass: string;
    quote: boolean;
    profile: boolean;
    dailyBars: number;
    hourlyBars: number;
  }[];
  computations: string[];
}

const explainOutput = z.object({
  plans: z
    .array(
      z.object({
        statement: z.string().describe('The statement in canonical form'),
        kind: z.string().describe('evaluate, compare, correlate, macro or scan'),
        fetches: z
          .array(
            z.object({
              symbol: z.string(),
              asset_class: z.enum(ASSET_CLASSES),
              quote: z.boolean(),
              profile: z.boolean(),
              daily_bars: z.number().int().describe('Daily bars fetched (0 = none)'),
              hourly_bars: z.number().int().describe('Hourly bars fetched (0 = none)'),
            }),
          )
          .describe('Per instrument, fetched once for the whole query'),
        computations: z.array(z.string()).describe('What is computed, with the convention used'),
      }),
    )
    .describe('One per statement, in the order written'),
});

const explainFkDsl: ToolDefinition<{ explainFkDsl: PlanData[] }, z.infer<typeof explainOutput>> = {
  name: 'explain-fk-dsl',
  title: 'Explain an FK-DSL query',
  description:
    'The evaluation plan of an FK-DSL query without running it (no market data is fetched): {plans: [{statement, ' +
    'kind, fetches: [{symbol, asset_class, quote, profile, daily_bars, hourly_bars}], computations}]}. Use it to ' +
    'check a query before execute-fk-dsl: a syntax error is FKDSL_SYNTAX_ERROR with its line and column, a ' +
    `limit FKDSL_QUERY_ERROR. At most ${LIMITS.queryLength} characters, ${LIMITS.statements} statements, ${LIMITS.symbols} ` +
    'symbols. Example: {query: "EVALUATE AAPL: PRICE, VOLATILITY(30d); SCAN CRYPTO WHERE RSI(14) < 30"}.',
  document: /* GraphQL */ `
    query ExplainFkDsl($query: String!) {
      explainFkDsl(query: $query) {
        statement kind computations
        fetches { symbol assetClass quote profile dailyBars hourlyBars }
      }
    }`,
  result: ({ explainFkDsl: plans }) => ({
    plans: plans.map((p) => ({
      statement: p.statement,
      kind: STATEMENT_KIND(p.kind),
      fetches: p.fetches.map((f) => ({
        symbol: f.symbol,
        asset_class: ASSET_CLASS(f.assetClass),
        quote: f.quote,
        profile: f.profile,
        daily_bars: f.dailyBars,
        hourly_bars: f.hourlyBars,
      })),
      computations: p.computations,
    })),
  }),
  outputSchema: explainOutput,
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
};

interface MetricData {
  name: string;
  signature: string;
  unit: string;
  technical: boolean;
  description: string;
}

const metricsOutput = z.object({
  metrics: z.array(
    z.object({
      name: z.string().describe('As written in queries: VOLATILITY'),
      signature: z.string().describe('Arguments with defaults: VOLATILITY(window = 30d); `...` repeats'),
      unit: z.enum(UNITS),
      technical: z.boolean().describe('Usable inside TECHNICAL(...)'),
      description: z.string(),
    }),
  ),
  units: z.record(z.string(), z.string()).describe('What each unit means, keyed by unit'),
});

const listFkDslMetrics: ToolDefinition<{ fkDslMetrics: MetricData[] }, z.infer<typeof metricsOutput>> = {
  name: 'list-fk-dsl-metrics',
  title: 'FK-DSL metric catalogue',
  description:
    'Every metric FK-DSL knows: {metrics: [{name, signature, unit, technical, description}], units}. The ' +
    'signature gives the arguments and their defaults (`VOLATILITY(window = 30d)`: windows in days `30d`, hours ' +
    '`24h` or bars `20`); unit is price, percent (-2.43 = -2.43 %), ratio, volume, currency, number or object ' +
    '(several components); `units` explains each. Metrics marked technical go inside TECHNICAL(...). Write ' +
    'queries with them for execute-fk-dsl: `EVALUATE AAPL: PRICE, RSI(14)`.',
  document: /* GraphQL */ `
    query FkDslMetrics { fkDslMetrics { name signature unit technical description } }`,
  result: ({ fkDslMetrics }) => {
    const metrics = fkDslMetrics.map((m) => ({
      name: m.name,
      signature: m.signature,
      unit: UNIT(m.unit),
      technical: m.technical,
      description: m.description,
    }));
    const used = new Set(metrics.map((m) => m.unit));
    return {
      metrics,
      units: Object.fromEntries(
        UNITS.filter((u) => used.has(u)).map((u) => [u, METRIC_UNIT_DESCRIPTIONS[u]]),
      ),
    };
  },
  outputSchema: metricsOutput,
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
};

interface UniversesData {
  universes: { name: string; description: string; source: string; size: number; symbols: string[] }[];
  watchdogCoverage: { symbols: string[]; correlationPairs: { first: string; second: string }[] };
}

const universesOutput = z.object({
  scan_universes: z.array(
    z.object({
      name: z.enum(SCAN_UNIVERSES).describe('As written in SCAN <universe> WHERE ...'),
      description: z.string(),
      source: z
        .enum(SOURCES)
        .describe('providers: a provider lists them; configuration: SCAN_UNIVERSE_* settings'),
      size: z.number().int(),
      symbols: z.array(z.string()),
    }),
  ),
  watchdogs: z.object({
    symbols: z.array(z.string()).describe('Symbols the watchdogs check (WATCHDOG_SYMBOLS)'),
    correlation_pairs: z
      .array(z.array(z.string()))
      .describe('Pairs correlation_breakdown watches, two symbols each'),
  }),
});

const listUniverses: ToolDefinition<UniversesData, z.infer<typeof universesOutput>> = {
  name: 'list-universes',
  title: 'Universes of SCAN and the watchdogs',
  description:
    'What FK-DSL SCAN and the watchdogs cover: {scan_universes: [{name, description, source, size, symbols}], ' +
    'watchdogs: {symbols, correlation_pairs}}. Names are US, ETF, CRYPTO and ALL, as in `SCAN CRYPTO WHERE ' +
    `RSI(14) < 30\`; a scan reads at most ${LIMITS.scanUniverse} instruments, and a SCAN may name its own list ` +
    '(`SCAN [AAPL, MSFT] WHERE ...`). The watchdogs check their symbols (each watchdog those its data covers) and ' +
    'their pairs; get-watchdog-events reports what they find.',
  document: /* GraphQL */ `
    query Universes {
      universes { name description source size symbols }
      watchdogCoverage { symbols correlationPairs { first second } }
    }`,
  result: ({ universes, watchdogCoverage: w }) => ({
    scan_universes: universes.map((u) => ({
      name: u.name as (typeof SCAN_UNIVERSES)[number],
      description: u.description,
      source: SOURCE(u.source),
      size: u.size,
      symbols: u.symbols,
    })),
    watchdogs: {
      symbols: w.symbols,
      correlation_pairs: w.correlationPairs.map((p) => [p.first, p.second]),
    },
  }),
  outputSchema: universesOutput,
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
};

export const fkDslCatalogTools: readonly ToolDefinition<never>[] = [
  explainFkDsl,
  listFkDslMetrics,
  listUniverses,
];
