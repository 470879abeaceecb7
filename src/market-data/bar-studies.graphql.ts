import { builder } from '../builder.ts';
import {
  type BollingerRequest,
  MAX_STD_DEVS,
  MAX_STUDIES,
  MAX_STUDY_PERIOD,
  MIN_STUDY_PERIOD,
  pageStudies,
  type Study,
  type StudyKind,
} from './history/bar-studies.ts';
import { BarConnectionRef } from './history.graphql.ts';
import { marketDataDeps } from './market-data.deps.ts';

/**
 * `BarConnection.studies`: indicator series over a page of bars, one value per bar, for charts that
 * overlay them on the candles (see history/bar-studies.ts for the computation and the warm-up).
 */

const VALUE_OBJECT = 'Value object: clients should not normalise it (Apollo `keyFields: false`).';
const PERIODS = `periods in bars, ${MIN_STUDY_PERIOD} to ${MAX_STUDY_PERIOD}`;
const PER_BAR =
  'One per bar of `nodes`, in the same order, in the price units of the bars; null where fewer than `period` closes are available.';

const STUDY_KINDS: Readonly<Record<StudyKind, string>> = {
  SMA: 'Simple moving average of the closes.',
  EMA: 'Exponential moving average of the closes (alpha = 2 / (period + 1), seeded with the SMA of the first period closes).',
  BOLLINGER_BANDS:
    'Bollinger bands: the SMA of the closes ± stdDevs population standard deviations of the same closes.',
};

const BarStudyKindEnum = builder.enumType('BarStudyKind', {
  description: 'Which indicator a bar study is.',
  values: Object.fromEntries(
    Object.entries(STUDY_KINDS).map(([value, description]) => [
      value,
      { value: value as StudyKind, description },
    ]),
  ),
});

const BollingerBandsInput = builder.inputType('BollingerBandsInput', {
  description: 'One set of Bollinger bands.',
  fields: (t) => ({
    period: t.int({
      required: true,
      defaultValue: 20,
      description: `Closes in the window, ${MIN_STUDY_PERIOD} to ${MAX_STUDY_PERIOD} (default 20).`,
    }),
    stdDevs: t.float({
      required: true,
      defaultValue: 2,
      description: `Band distance from the middle in standard deviations, above 0 and at most ${MAX_STD_DEVS} (default 2).`,
    }),
  }),
});

const BarStudyRef = builder.objectRef<Study>('BarStudy').implement({
  description: `One indicator series over the bars of a page, aligned with \`nodes\`. ${VALUE_OBJECT}`,
  fields: (t) => ({
    name: t.exposeString('name', {
      description: 'The indicator as FK-DSL writes it: `SMA(20)`, `EMA(50)`, `BOLLINGER_BANDS(20, 2)`.',
    }),
    kind: t.field({ type: BarStudyKindEnum, description: 'Which indicator.', resolve: (s) => s.kind }),
    period: t.exposeInt('period', { description: 'Closes in the window, in bars.' }),
    stdDevs: t.exposeFloat('stdDevs', {
      nullable: true,
      description: 'BOLLINGER_BANDS: band distance in standard deviations; null for the other kinds.',
    }),
    values: t.field({
      type: ['Float'],
      nullable: { list: false, items: true },
      description: `The average (BOLLINGER_BANDS: the middle band). ${PER_BAR}`,
      resolve: (s) => [...s.values],
    }),
    upper: t.field({
      type: ['Float'],
      nullable: { list: true, items: true },
      description: `BOLLINGER_BANDS: the upper band; null for the other kinds. ${PER_BAR}`,
      resolve: (s) => (s.upper ? [...s.upper] : null),
    }),
    lower: t.field({
      type: ['Float'],
      nullable: { list: true, items: true },
      description: `BOLLINGER_BANDS: the lower band; null for the other kinds. ${PER_BAR}`,
      resolve: (s) => (s.lower ? [...s.lower] : null),
    }),
  }),
});

builder.objectField(BarConnectionRef, 'studies', (t) =>
  t.field({
    type: [BarStudyRef],
    description:
      'Indicator series over the closes of this page, one value per bar of `nodes` (price units), computed by ' +
      'the same indicator code as FK-DSL: SMAs first, then EMAs, then Bollinger bands, each in the order asked. ' +
      'Warm-up: each series is computed over the page preceded by up to `period - 1` earlier bars of the same ' +
      'instrument and interval, so it has a value from the first bar on when that much earlier history exists ' +
      '(and consecutive pages join into one line); otherwise it is null until `period` closes are available. ' +
      `At most ${MAX_STUDIES} studies per request; a bad argument is BAD_USER_INPUT naming it.`,
    args: {
      sma: t.arg.intList({ description: `Simple moving averages, ${PERIODS}.` }),
      ema: t.arg.intList({ description: `Exponential moving averages, ${PERIODS}.` }),
      bollinger: t.arg({
        type: [BollingerBandsInput],
        description: 'Bollinger bands (20 closes, 2 standard deviations by default).',
      }),
    },
    resolve: (page, args, ctx) =>
      pageStudies(marketDataDeps(ctx).marketData, page, {
        sma: args.sma ?? null,
        ema: args.ema ?? null,
        bollinger: (args.bollinger ?? null) as readonly BollingerRequest[] | null,
      }),
  }),
);
