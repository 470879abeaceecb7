/** The bars of a range, paged through (`first`/`after`) until the range is complete. */
import { useEffect, useState } from 'preact/hooks';
import { type ApiError, fetchQuery } from '../../api.ts';
import { type Candle, MAX_BARS, toCandle } from './live-bars.ts';
import { appendStudies, emptyLineValues, type LineValues } from './overlay-lines.ts';
import { asApiError, BARS_QUERY, type BarInterval, type BarPage, type Lineage, STUDIES } from './queries.ts';

const PAGE = 1000;

export interface BarsState {
  readonly candles: readonly Candle[] | undefined;
  /** Vigil's SMA 20, EMA 20 and Bollinger 20 values, one per candle loaded (not following live ticks). */
  readonly lines: LineValues;
  readonly name: string | null;
  readonly lineage: Lineage | undefined;
  readonly error: ApiError | undefined;
  readonly loading: boolean;
}

async function load(symbol: string, interval: BarInterval, rangeSeconds: number) {
  const from = new Date(Date.now() - rangeSeconds * 1000).toISOString();
  const candles: Candle[] = [];
  const lines = emptyLineValues();
  let after: string | null = null;
  let page: BarPage;
  do {
    const vars: Record<string, unknown> = { symbol, interval, from, first: PAGE, after, ...STUDIES };
    page = (await fetchQuery<{ bars: BarPage }>(BARS_QUERY, vars)).bars;
    candles.push(...page.nodes.map(toCandle));
    appendStudies(lines, page.studies, page.nodes.length);
    after = page.pageInfo.endCursor;
  } while (page.pageInfo.hasNextPage && after && candles.length < MAX_BARS);
  return { candles, lines, name: page.instrument.name, lineage: page.lineage };
}

export function useBars(
  symbol: string,
  interval: BarInterval,
  rangeSeconds: number,
  round: number,
): BarsState {
  const [state, setState] = useState<BarsState>({
    candles: undefined,
    lines: emptyLineValues(),
    name: null,
    lineage: undefined,
    error: undefined,
    loading: true,
  });
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true, error: undefined }));
    load(symbol, interval, rangeSeconds)
      .then((r) => live && setState({ ...r, error: undefined, loading: false }))
      .catch(
        (e) => live && setState((s) => ({ ...s, candles: undefined, error: asApiError(e), loading: false })),
      );
    return () => {
      live = false;
    };
  }, [symbol, interval, rangeSeconds, round]);
  return state;
}
