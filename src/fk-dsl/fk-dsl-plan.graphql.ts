import { builder } from '../builder.ts';
import { AssetClassEnum } from '../market-data/market-data.graphql.ts';
import type { AssetClass } from '../market-data/types.ts';
import { enumValues } from '../platform/graphql/enum-values.ts';
import type { Statement } from './ast.ts';
import type { StatementPlan } from './explain.ts';
import type { StatementOutcome } from './fk-dsl.service.ts';
import { VALUE_OBJECT } from './fk-dsl-values.graphql.ts';

/** Statement kinds and the evaluation plan EXPLAIN (and explainFkDsl) gives, typed. */

export type StatementKind = Statement['kind'];

export const StatementKindEnum = builder.enumType('FkDslStatementKind', {
  description: 'The kinds of FK-DSL statement.',
  values: enumValues<StatementKind>({
    evaluate: 'EVALUATE <asset>: <metric>, ... — metrics of one asset.',
    compare: 'COMPARE <asset> VS <asset> ... ON: <metric>, ... — the same metrics side by side.',
    correlate: 'CORRELATE <asset>, <asset>, ... [PERIOD(90d)] — correlations of log returns.',
    macro:
      'MACRO: <indicator>, ... -> REGRESSION|CORRELATION|IMPACT|CAUSALITY ON <asset> — the asset against macro series.',
    scan: 'SCAN <universe> WHERE <condition> AND ... — the instruments that meet every condition.',
    explain: 'EXPLAIN <statement> — the evaluation plan, without running it.',
  }),
});

type Fetch = StatementPlan['fetches'][number];

const FetchRef = builder.objectRef<Fetch>('FkDslFetch').implement({
  description: `What a statement fetches of one instrument (once, however many metrics use it). ${VALUE_OBJECT}`,
  fields: (t) => ({
    symbol: t.exposeString('symbol', { description: 'The instrument (canonical symbol).' }),
    assetClass: t.field({
      type: AssetClassEnum,
      description: 'What kind of instrument it is.',
      resolve: (f) => f.assetClass as AssetClass,
    }),
    quote: t.exposeBoolean('quote', { description: 'Whether its latest quote is fetched.' }),
    profile: t.exposeBoolean('profile', { description: 'Whether its profile is fetched.' }),
    dailyBars: t.exposeInt('dailyBars', { description: 'Daily bars fetched (a count of bars; 0 = none).' }),
    hourlyBars: t.exposeInt('hourlyBars', {
      description: 'Hourly bars fetched (a count of bars; 0 = none).',
    }),
  }),
});

export const PlanRef = builder.objectRef<StatementPlan>('FkDslPlan').implement({
  description: `The evaluation plan of one statement: what is fetched and what is computed. ${VALUE_OBJECT}`,
  fields: (t) => ({
    statement: t.exposeString('statement', { description: 'The statement in canonical form.' }),
    kind: t.field({
      type: StatementKindEnum,
      description: 'The kind of the statement planned.',
      resolve: (p) => p.kind as StatementKind,
    }),
    fetches: t.field({
      type: [FetchRef],
      description: 'Per instrument: quote, profile, daily and hourly bars, fetched once for the whole query.',
      resolve: (p) => [...p.fetches],
    }),
    fetchesJson: t.field({
      type: 'JSON',
      description: '`fetches` as untyped JSON, as this field was before it was typed.',
      deprecationReason: 'Use `fetches`; this JSON form is removed in the next release.',
      resolve: (p) => p.fetches,
    }),
    computations: t.exposeStringList('computations', {
      description: 'What is computed from the data, with the convention used.',
    }),
  }),
});

export const ExplainRef = builder
  .objectRef<Extract<StatementOutcome, { readonly kind: 'explain' }>>('FkDslExplainResult')
  .implement({
    description: `What an EXPLAIN statement gives: the plan of the statement it explains, which is not run. ${VALUE_OBJECT}`,
    fields: (t) => ({
      plan: t.field({ type: PlanRef, description: 'The plan.', resolve: (s) => s.plan }),
    }),
  });
