import { ValidationError } from '../../platform/errors.ts';
import { bollinger, ema, sma } from '../../quant/indicators/index.ts';
import { roundFloat } from '../../quant/round.ts';
import type { MarketDataService } from '../market-data.service.ts';
import { BAR_INTERVAL_MS, type Bar, MAX_BARS_PER_REQUEST } from '../types.ts';
import type { HistoryPage } from './bar-history.service.ts';

/**
 * Indicator series aligned with a page of bars, for charts that overlay them on the candles. The
 * numbers come from the quant indicators (the ones FK-DSL and the technical summary use), computed
 * over the page's closes preceded by up to `period - 1` earlier closes, so a line starts at the
 * page's first bar whenever the provider has that much earlier history, and pages of one range
 * join into one continuous line.
 */

export const MIN_STUDY_PERIOD = 2;
export const MAX_STUDY_PERIOD = 500;
export const MAX_STUDIES = 6;
export const MAX_STD_DEVS = 10;

export type StudyKind = 'SMA' | 'EMA' | 'BOLLINGER_BANDS';

export interface BollingerRequest {
  readonly period: number;
  readonly stdDevs: number;
}

export interface StudiesRequest {
  readonly sma?: readonly number[] | null;
  readonly ema?: readonly number[] | null;
  readonly bollinger?: readonly BollingerRequest[] | null;
}

export interface Study {
  readonly name: string;
  readonly kind: StudyKind;
  readonly period: number;
  /** Band width of BOLLINGER_BANDS in standard deviations; null for the averages. */
  readonly stdDevs: number | null;
  /** One per bar of the page: the average (BOLLINGER_BANDS: the middle band); null in the warm-up. */
  readonly values: readonly (number | null)[];
  readonly upper: readonly (number | null)[] | null;
  readonly lower: readonly (number | null)[] | null;
}

type Spec = { kind: StudyKind; period: number; stdDevs: number | null };

function checkPeriod(period: number, field: string): number {
  if (!Number.isInteger(period) || period < MIN_STUDY_PERIOD || period > MAX_STUDY_PERIOD) {
    throw new ValidationError(
      field,
      `a period must be a whole number of bars from ${MIN_STUDY_PERIOD} to ${MAX_STUDY_PERIOD}, got ${period}`,
    );
  }
  return period;
}

/** The requested studies in a fixed order (SMA, EMA, Bollinger, each as listed), checked. */
export function studySpecs(request: StudiesRequest): Spec[] {
  const specs: Spec[] = [
    ...(request.sma ?? []).map((p, i) => ({
      kind: 'SMA' as const,
      period: checkPeriod(p, `sma[${i}]`),
      stdDevs: null,
    })),
    ...(request.ema ?? []).map((p, i) => ({
      kind: 'EMA' as const,
      period: checkPeriod(p, `ema[${i}]`),
      stdDevs: null,
    })),
    ...(request.bollinger ?? []).map((b, i) => {
      if (!(Number.isFinite(b.stdDevs) && b.stdDevs > 0 && b.stdDevs <= MAX_STD_DEVS)) {
        throw new ValidationError(
          `bollinger[${i}].stdDevs`,
          `must be above 0 and at most ${MAX_STD_DEVS}, got ${b.stdDevs}`,
        );
      }
      return {
        kind: 'BOLLINGER_BANDS' as const,
        period: checkPeriod(b.period, `bollinger[${i}].period`),
        stdDevs: b.stdDevs,
      };
    }),
  ];
  if (specs.length > MAX_STUDIES) {
    throw new ValidationError(
      'studies',
      `at most ${MAX_STUDIES} studies per request (sma, ema and bollinger together), got ${specs.length}`,
    );
  }
  return specs;
}

const tidy = (series: ArrayLike<number>, skip: number): (number | null)[] => {
  const out: (number | null)[] = [];
  for (let i = skip; i < series.length; i++) {
    const v = series[i]!;
    out.push(Number.isFinite(v) ? roundFloat(v) : null);
  }
  return out;
};

/**
 * The studies over `closes`, of which the first `lead` are warm-up closes before the page: each
 * output keeps only the page's part, one value per page bar.
 */
export function computeStudies(specs: readonly Spec[], closes: readonly number[], lead: number): Study[] {
  return specs.map((spec) => {
    const base = { kind: spec.kind, period: spec.period, stdDevs: spec.stdDevs };
    if (spec.kind === 'BOLLINGER_BANDS') {
      const bands = bollinger(closes, spec.period, spec.stdDevs!);
      return {
        ...base,
        name: `BOLLINGER_BANDS(${spec.period}, ${spec.stdDevs})`,
        values: tidy(bands.middle, lead),
        upper: tidy(bands.upper, lead),
        lower: tidy(bands.lower, lead),
      };
    }
    const line = spec.kind === 'SMA' ? sma(closes, spec.period) : ema(closes, spec.period);
    return {
      ...base,
      name: `${spec.kind}(${spec.period})`,
      values: tidy(line, lead),
      upper: null,
      lower: null,
    };
  });
}

/**
 * Up to `count` bars just before `before`. Markets close (nights, weekends, holidays), so a span of
 * `count` intervals may hold fewer bars: the span widens once before giving up. A provider that has
 * no earlier history (or refuses the range) leaves the warm-up short, never the page failed.
 */
export async function barsBefore(
  marketData: MarketDataService,
  page: HistoryPage,
  before: Date,
  count: number,
): Promise<Bar[]> {
  const step = BAR_INTERVAL_MS[page.interval];
  let bars: readonly Bar[] = [];
  for (const spanBars of [count * 2 + 7, count * 8 + 200]) {
    const from = new Date(before.getTime() - Math.min(spanBars, MAX_BARS_PER_REQUEST) * step);
    try {
      bars = (await marketData.bars(page.instrument, page.interval, from, before)).value;
    } catch {
      return [];
    }
    if (bars.length >= count) break;
  }
  return bars.slice(-count);
}

/** The studies of a page, warmed up with the bars before its first one. */
export async function pageStudies(
  marketData: MarketDataService,
  page: HistoryPage,
  request: StudiesRequest,
): Promise<Study[]> {
  const specs = studySpecs(request);
  const first = page.bars[0];
  if (specs.length === 0 || !first) return computeStudies(specs, [], 0);
  const need = Math.max(...specs.map((s) => s.period)) - 1;
  const lead = await barsBefore(marketData, page, first.time, need);
  const closes = [...lead, ...page.bars].map((b) => b.close);
  return computeStudies(specs, closes, lead.length);
}
