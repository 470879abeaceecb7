import { builder } from '../builder.ts';
import { enumValues } from '../platform/graphql/enum-values.ts';
import type { GrangerLagSelection } from '../quant/stats/index.ts';
import { P_VALUE, tidy, VALUE_OBJECT } from './fk-dsl-values.graphql.ts';

/**
 * MACRO ... CAUSALITY results typed: Granger F tests both ways between each indicator and the asset.
 * The evaluator keys the two directions by text (`US10Y -> SPY`); here they are `forward` and
 * `reverse`, each naming its cause and effect.
 */

export type Granger = GrangerLagSelection | Omit<GrangerLagSelection, 'aicByLag'>;

const ConclusionEnum = builder.enumType('FkDslGrangerConclusion', {
  description: 'What a Granger test concludes at the 5 % level.',
  values: enumValues<Granger['conclusion']>({
    causes:
      "The cause's past improves the prediction of the effect (predictive precedence, not economic causation).",
    'no evidence': 'No evidence that it does.',
  }),
});

const LagAicRef = builder
  .objectRef<{ readonly lags: number; readonly aic: number }>('FkDslLagAic')
  .implement({
    description: `The AIC of a Granger model with a given number of lags. ${VALUE_OBJECT}`,
    fields: (t) => ({
      lags: t.exposeInt('lags', { description: 'Lags (periods).' }),
      aic: t.float({
        nullable: true,
        description: 'Akaike information criterion (lower is better; only differences matter).',
        resolve: (l) => tidy(l.aic),
      }),
    }),
  });

const GrangerRef = builder
  .objectRef<Granger & { readonly cause: string; readonly effect: string }>('FkDslGrangerTest')
  .implement({
    description: `A Granger causality F test of one direction. ${VALUE_OBJECT}`,
    fields: (t) => ({
      cause: t.exposeString('cause', { description: 'The series whose past is tested.' }),
      effect: t.exposeString('effect', { description: 'The series it may help predict.' }),
      lags: t.exposeInt('lags', { description: 'Lags used (periods).' }),
      fStatistic: t.float({
        nullable: true,
        description: 'The F statistic.',
        resolve: (g) => tidy(g.fStatistic),
      }),
      pValue: t.float({
        nullable: true,
        description: `p-value of the F test, ${P_VALUE}.`,
        resolve: (g) => tidy(g.pValue),
      }),
      dfNumerator: t.exposeInt('dfNumerator', { description: 'Numerator degrees of freedom (= lags).' }),
      dfDenominator: t.exposeInt('dfDenominator', {
        description: 'Denominator degrees of freedom, n - 2 lags - 1.',
      }),
      n: t.exposeInt('n', { description: 'Observations in both regressions.' }),
      rssRestricted: t.float({
        nullable: true,
        description: 'RSS without the cause’s lags.',
        resolve: (g) => tidy(g.rssRestricted),
      }),
      rssUnrestricted: t.float({
        nullable: true,
        description: 'RSS with them.',
        resolve: (g) => tidy(g.rssUnrestricted),
      }),
      conclusion: t.field({
        type: ConclusionEnum,
        description: 'At the 5 % level.',
        resolve: (g) => g.conclusion,
      }),
      aicByLag: t.field({
        type: [LagAicRef],
        nullable: true,
        description:
          'The lag counts tried when LAGS was not given (the one with the lowest AIC was chosen); null otherwise.',
        resolve: (g) => ('aicByLag' in g ? [...g.aicByLag] : null),
      }),
    }),
  });

/** Both directions for one indicator; the evaluator keys them `US10Y -> SPY` and `SPY -> US10Y`. */
export interface Causality {
  readonly indicator: string;
  readonly target: string;
  readonly forward: Granger;
  readonly reverse: Granger;
}

export const CausalityRef = builder.objectRef<Causality>('FkDslCausality').implement({
  description: `Granger causality between one indicator and the asset, both ways. ${VALUE_OBJECT}`,
  fields: (t) => ({
    indicator: t.exposeString('indicator', { description: 'The indicator (US10Y, VIX, ...).' }),
    forward: t.field({
      type: GrangerRef,
      description: 'Indicator -> asset: does the indicator help predict the asset?',
      resolve: (c) => ({ ...c.forward, cause: c.indicator, effect: c.target }),
    }),
    reverse: t.field({
      type: GrangerRef,
      description: 'Asset -> indicator, with the same lags.',
      resolve: (c) => ({ ...c.reverse, cause: c.target, effect: c.indicator }),
    }),
  }),
});
