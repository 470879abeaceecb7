import { builder } from '../builder.ts';
import { enumValues } from '../platform/graphql/enum-values.ts';
import type { Coefficient, Impact, OlsResult } from '../quant/stats/index.ts';
import type { MacroStatement } from './ast.ts';
import type { MacroResult } from './evaluator/macro.ts';
import { CausalityRef, type Granger } from './fk-dsl-causality.graphql.ts';
import { P_VALUE, tidy, VALUE_OBJECT } from './fk-dsl-values.graphql.ts';

/**
 * MACRO results typed: the analysis (regression, correlation, impact or causality) of an asset's
 * returns on macro series. The evaluator gives `result` a shape per analysis; each gets a field of
 * its own here, set for that analysis only. Statistics are nullable: one that is not a finite
 * number (R² of a series that never moves) is null, never a made-up value.
 */

export type MacroOutcome = MacroResult & { readonly kind: 'macro'; readonly statement: string };
type Analysis = MacroStatement['analysis'];

const AnalysisEnum = builder.enumType('FkDslMacroAnalysis', {
  description: 'What a MACRO statement computes.',
  values: enumValues<Analysis>({
    regression: 'OLS of the asset returns on the indicator changes (see `regression`).',
    correlation: 'Pearson correlation of the asset returns with each indicator change (see `correlations`).',
    impact:
      'The asset return that goes with a one-standard-deviation move of each indicator (see `impacts`).',
    causality: 'Granger causality both ways between each indicator and the asset (see `causality`).',
  }),
});

export type Transform = 'log change' | 'difference';

const TransformEnum = builder.enumType('FkDslSeriesTransform', {
  description: 'How a series is turned into changes before the analysis.',
  values: enumValues<Transform>({
    'log change': 'Log changes, ln(x_t / x_t-1): prices and level-type series.',
    difference: "First differences, x_t - x_t-1, in the series' own units: yields, rates, unemployment.",
  }),
});

const CoefficientRef = builder.objectRef<Coefficient>('FkDslCoefficient').implement({
  description: `One coefficient of a MACRO regression. ${VALUE_OBJECT}`,
  fields: (t) => ({
    name: t.exposeString('name', { description: '`intercept` or the indicator (US10Y, CPI, ...).' }),
    estimate: t.float({
      nullable: true,
      description: 'The estimate: log return of the asset per unit of indicator change (per period).',
      resolve: (c) => tidy(c.estimate),
    }),
    standardError: t.float({
      nullable: true,
      description: 'Standard error of the estimate, in its unit.',
      resolve: (c) => tidy(c.standardError),
    }),
    tStatistic: t.float({
      nullable: true,
      description: 'estimate / standardError.',
      resolve: (c) => tidy(c.tStatistic),
    }),
    pValue: t.float({
      nullable: true,
      description: `Two-sided p-value (Student t, n - k degrees of freedom), ${P_VALUE}.`,
      resolve: (c) => tidy(c.pValue),
    }),
  }),
});

const RegressionRef = builder.objectRef<OlsResult>('FkDslRegression').implement({
  description: `Ordinary least squares of the asset's log returns on the indicators' changes. ${VALUE_OBJECT}`,
  fields: (t) => ({
    coefficients: t.field({
      type: [CoefficientRef],
      description: 'The intercept first, then one per indicator in the order written.',
      resolve: (r) => [...r.coefficients],
    }),
    rSquared: t.float({
      nullable: true,
      description: 'R², a fraction from 0 to 1; null when the asset never moved.',
      resolve: (r) => tidy(r.rSquared),
    }),
    adjustedRSquared: t.float({
      nullable: true,
      description: 'R² adjusted for the number of parameters, a fraction.',
      resolve: (r) => tidy(r.adjustedRSquared),
    }),
    fStatistic: t.float({
      nullable: true,
      description: 'F statistic of the test that every slope is zero.',
      resolve: (r) => tidy(r.fStatistic),
    }),
    fPValue: t.float({
      nullable: true,
      description: `p-value of that F test, ${P_VALUE}.`,
      resolve: (r) => tidy(r.fPValue),
    }),
    residualStdError: t.float({
      nullable: true,
      description: 'sqrt(RSS / (n - k)): the typical residual, in log return per period.',
      resolve: (r) => tidy(r.residualStdError),
    }),
    rss: t.float({
      nullable: true,
      description: 'Residual sum of squares (log returns squared).',
      resolve: (r) => tidy(r.rss),
    }),
    n: t.exposeInt('n', { description: 'Observations.' }),
    k: t.exposeInt('k', { description: 'Estimated parameters, the intercept included.' }),
    degreesOfFreedom: t.exposeInt('degreesOfFreedom', { description: 'n - k.' }),
  }),
});

export interface MacroCorrelation {
  readonly indicator: string;
  readonly correlation: number | null;
  readonly pValue: number | null;
}

const CorrelationRef = builder.objectRef<MacroCorrelation>('FkDslMacroCorrelation').implement({
  description: `The correlation of the asset's returns with one indicator's changes. ${VALUE_OBJECT}`,
  fields: (t) => ({
    indicator: t.exposeString('indicator', { description: 'The indicator (US10Y, CPI, ...).' }),
    correlation: t.float({
      nullable: true,
      description: 'Pearson correlation, from -1 to 1.',
      resolve: (c) => tidy(c.correlation),
    }),
    pValue: t.float({
      nullable: true,
      description: `Two-sided p-value of no correlation, ${P_VALUE}.`,
      resolve: (c) => tidy(c.pValue),
    }),
  }),
});

export type MacroImpact = Impact & {
  readonly impactPercent: number;
  readonly impactStandardErrorPercent: number;
  readonly meanTargetReturnPercent: number;
};

const ImpactRef = builder.objectRef<MacroImpact>('FkDslMacroImpact').implement({
  description:
    'What a one-standard-deviation move of one indicator (the others held fixed) goes with in the asset, ' +
    `per period. ${VALUE_OBJECT}`,
  fields: (t) => ({
    indicator: t.exposeString('indicator', { description: 'The indicator (US10Y, CPI, ...).' }),
    coefficient: t.float({
      nullable: true,
      description: 'Regression coefficient: log return per unit of indicator change.',
      resolve: (i) => tidy(i.coefficient),
    }),
    pValue: t.float({
      nullable: true,
      description: `p-value of the coefficient, ${P_VALUE}.`,
      resolve: (i) => tidy(i.pValue),
    }),
    indicatorChangeSd: t.float({
      nullable: true,
      description:
        "Standard deviation of the indicator's change per period, in the indicator's units (log change or difference).",
      resolve: (i) => tidy(i.indicatorChangeSd),
    }),
    impact: t.float({
      nullable: true,
      description: 'coefficient x sd: the log return, as a fraction (0.01 = 1 %).',
      resolve: (i) => tidy(i.impact),
    }),
    impactStandardError: t.float({
      nullable: true,
      description: 'Standard error of `impact`, as a fraction.',
      resolve: (i) => tidy(i.impactStandardError),
    }),
    impactPercent: t.float({
      nullable: true,
      description: '`impact` in percent: -2.43 means -2.43 %.',
      resolve: (i) => tidy(i.impactPercent),
    }),
    impactStandardErrorPercent: t.float({
      nullable: true,
      description: '`impactStandardError` in percent.',
      resolve: (i) => tidy(i.impactStandardErrorPercent),
    }),
    meanTargetReturnPercent: t.float({
      nullable: true,
      description: "The asset's mean log return per period, in percent (for scale).",
      resolve: (i) => tidy(i.meanTargetReturnPercent),
    }),
  }),
});

const TransformedSeriesRef = builder
  .objectRef<{ readonly symbol: string; readonly transform: Transform }>('FkDslTransformedSeries')
  .implement({
    description: `How one series was turned into changes. ${VALUE_OBJECT}`,
    fields: (t) => ({
      symbol: t.exposeString('symbol', { description: 'The series (target or indicator).' }),
      transform: t.field({ type: TransformEnum, description: 'The transform.', resolve: (s) => s.transform }),
    }),
  });

/** The analysis result, when the statement's analysis is `analysis`; null otherwise. */
const resultOf = <T>(m: MacroOutcome, analysis: Analysis): T | null =>
  m.analysis === analysis && m.result !== null && m.result !== undefined ? (m.result as T) : null;

export const MacroResultRef = builder.objectRef<MacroOutcome>('FkDslMacroResult').implement({
  description:
    "What a MACRO statement gives: how the asset's returns relate to macro series, on the dates of the " +
    `least frequent series. One of regression, correlations, impacts and causality is set, by analysis. ${VALUE_OBJECT}`,
  fields: (t) => ({
    analysis: t.field({ type: AnalysisEnum, description: 'What was computed.', resolve: (m) => m.analysis }),
    target: t.exposeString('target', { description: 'The asset (canonical symbol).' }),
    indicators: t.exposeStringList('indicators', { description: 'The macro series, in the order written.' }),
    window: t.exposeString('window', { description: 'The window, as written or the default (`5y`).' }),
    frequency: t.exposeString('frequency', {
      description: 'Spacing of the aligned dates: daily, weekly, monthly, quarterly or `every N days`.',
    }),
    observations: t.exposeInt('observations', { description: 'Aligned changes the analysis used.' }),
    from: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'First aligned date.',
      resolve: (m) => m.from,
    }),
    to: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'Last aligned date.',
      resolve: (m) => m.to,
    }),
    transforms: t.field({
      type: [TransformedSeriesRef],
      description: 'Per series (the target first): log changes or first differences.',
      resolve: (m) => Object.entries(m.transforms).map(([symbol, transform]) => ({ symbol, transform })),
    }),
    regression: t.field({
      type: RegressionRef,
      nullable: true,
      description: 'The fit (analysis REGRESSION).',
      resolve: (m) => resultOf<OlsResult>(m, 'regression'),
    }),
    correlations: t.field({
      type: [CorrelationRef],
      nullable: true,
      description: 'One per indicator (analysis CORRELATION).',
      resolve: (m) => {
        const byIndicator = resultOf<Record<string, Omit<MacroCorrelation, 'indicator'>>>(m, 'correlation');
        return byIndicator && Object.entries(byIndicator).map(([indicator, c]) => ({ indicator, ...c }));
      },
    }),
    impacts: t.field({
      type: [ImpactRef],
      nullable: true,
      description: 'One per indicator (analysis IMPACT).',
      resolve: (m) => resultOf<MacroImpact[]>(m, 'impact'),
    }),
    causality: t.field({
      type: [CausalityRef],
      nullable: true,
      description: 'One per indicator (analysis CAUSALITY).',
      resolve: (m) =>
        resultOf<Array<Record<string, unknown> & { indicator: string }>>(m, 'causality')?.map((c) => ({
          indicator: c.indicator,
          target: m.target,
          forward: c[`${c.indicator} -> ${m.target}`] as Granger,
          reverse: c[`${m.target} -> ${c.indicator}`] as Granger,
        })) ?? null,
    }),
    conventions: t.exposeString('conventions', {
      description: 'How the series were aligned and what was computed.',
    }),
  }),
});
