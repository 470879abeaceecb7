import type { Clock } from '../../platform/clock.ts';
import { ValidationError } from '../../platform/errors.ts';
import type { Lineage } from '../arbitration/lineage.ts';
import type { MarketDataService } from '../market-data.service.ts';
import { BAR_INTERVAL_MS, type BarInterval, type Instrument, MAX_BARS_PER_REQUEST } from '../types.ts';
import {
  type BarPage,
  checkPageSize,
  DEFAULT_BARS_PER_PAGE,
  DEFAULT_LOOKBACK_MS,
  decodeCursor,
  pageOf,
  parseLookback,
} from './bar-pages.ts';

export interface HistoryRequest {
  readonly instrument: Instrument;
  readonly interval: BarInterval;
  /** Start of the range (bar open times >= from); default `to` minus DEFAULT_LOOKBACK_MS. */
  readonly from?: Date | null;
  /** End of the range, exclusive; default now. */
  readonly to?: Date | null;
  /** Instead of `from`: how far before `to` the range starts (`90d`, see parseLookback). */
  readonly lookback?: string | null;
  readonly first?: number | null;
  /** A cursor of a previous page: the page starts with the bar after it. */
  readonly after?: string | null;
}

export interface HistoryPage extends BarPage {
  readonly instrument: Instrument;
  readonly interval: BarInterval;
  readonly from: Date;
  readonly to: Date;
  /** Where the whole range came from (provider, cache). */
  readonly lineage: Lineage;
}

/**
 * One page of OHLCV history, oldest bar first, for users and agents to see (and check) what the
 * indicators are computed from. The whole range is fetched once through the market-data service
 * (arbitrated, cached by whole bars), so paging through it costs one provider call.
 */
export async function barHistory(
  marketData: MarketDataService,
  clock: Clock,
  request: HistoryRequest,
): Promise<HistoryPage> {
  const { instrument, interval } = request;
  const first = checkPageSize(request.first ?? DEFAULT_BARS_PER_PAGE);
  const afterMs = request.after != null ? decodeCursor(request.after) : undefined;
  const to = request.to ?? clock.now();
  if (request.from != null && request.lookback != null)
    throw new ValidationError('lookback', 'give from or lookback, not both');
  const back = request.lookback != null ? parseLookback(request.lookback) : DEFAULT_LOOKBACK_MS[interval];
  const from = request.from ?? new Date(to.getTime() - back);
  if (!(from.getTime() < to.getTime())) throw new ValidationError('from', 'must be before to');
  const count = (to.getTime() - from.getTime()) / BAR_INTERVAL_MS[interval];
  if (count > MAX_BARS_PER_REQUEST) {
    throw new ValidationError(
      'from',
      `the range holds about ${Math.round(count)} ${interval} bars; at most ${MAX_BARS_PER_REQUEST}: move from closer to to`,
    );
  }
  const { value, lineage } = await marketData.bars(instrument, interval, from, to);
  return { ...pageOf(value, first, afterMs), instrument, interval, from, to, lineage };
}
