import { builder } from '../builder.ts';
import { barHistory, type HistoryPage } from './history/bar-history.service.ts';
import {
  DEFAULT_BARS_PER_PAGE,
  DEFAULT_LOOKBACK_MS,
  encodeCursor,
  MAX_BARS_PER_PAGE,
} from './history/bar-pages.ts';
import { InstrumentRef } from './instrument.graphql.ts';
import { resolveInstrument } from './instruments.ts';
import { knownName } from './lookup.service.ts';
import { marketDataDeps } from './market-data.deps.ts';
import { AssetClassEnum, BarRef, LineageRef, MARKET_ARGUMENT } from './market-data.graphql.ts';
import type { Bar, BarInterval } from './types.ts';
import { MAX_BARS_PER_REQUEST } from './types.ts';

/**
 * OHLCV history as a Relay-style connection (edges with cursors, pageInfo), which Apollo's
 * `relayStylePagination()` and urql Graphcache's `relayPagination()` merge page by page; `nodes`
 * gives the bars without edges for clients that do not need cursors.
 */

const DAY = 86_400_000;
const lookback = (interval: BarInterval) => {
  const days = DEFAULT_LOOKBACK_MS[interval] / DAY;
  return days === 1 ? 'one day' : `${days} days`;
};

export const BarIntervalEnum = builder.enumType('BarInterval', {
  description: 'Length of one bar.',
  values: {
    ONE_MINUTE: { value: '1m', description: `One minute; default range ${lookback('1m')}.` },
    FIVE_MINUTES: { value: '5m', description: `Five minutes; default range ${lookback('5m')}.` },
    FIFTEEN_MINUTES: { value: '15m', description: `Fifteen minutes; default range ${lookback('15m')}.` },
    THIRTY_MINUTES: { value: '30m', description: `Thirty minutes; default range ${lookback('30m')}.` },
    ONE_HOUR: { value: '1h', description: `One hour; default range ${lookback('1h')}.` },
    ONE_DAY: {
      value: '1d',
      description: `One day (bars stamped at the session date, 00:00 UTC or the exchange open); default range ${lookback('1d')}.`,
    },
  } as const,
});

interface Edge {
  readonly node: Bar;
}

const PageInfoRef = builder.objectRef<HistoryPage>('PageInfo').implement({
  description:
    'Where a page lies in its connection (Relay cursor connections). Value object: not normalised.',
  fields: (t) => ({
    hasNextPage: t.exposeBoolean('hasNextPage', {
      description: 'True when later items follow: ask again with `after: endCursor`.',
    }),
    hasPreviousPage: t.exposeBoolean('hasPreviousPage', {
      description: 'True when earlier items precede this page.',
    }),
    startCursor: t.string({
      nullable: true,
      description: 'Cursor of the first item of the page; null for an empty page.',
      resolve: (p) => (p.bars[0] ? encodeCursor(p.bars[0].time) : null),
    }),
    endCursor: t.string({
      nullable: true,
      description: 'Cursor of the last item of the page; null for an empty page.',
      resolve: (p) => (p.bars.at(-1) ? encodeCursor(p.bars.at(-1)!.time) : null),
    }),
  }),
});

const BarEdgeRef = builder.objectRef<Edge>('BarEdge').implement({
  description: 'A bar and its cursor. Value object: not normalised.',
  fields: (t) => ({
    cursor: t.string({
      description: 'Opaque cursor of this bar: pass it as `after` to continue after it.',
      resolve: (e) => encodeCursor(e.node.time),
    }),
    node: t.field({ type: BarRef, description: 'The bar.', resolve: (e) => e.node }),
  }),
});

export const BarConnectionRef = builder.objectRef<HistoryPage>('BarConnection').implement({
  description:
    'One page of the OHLCV bars of an instrument, oldest first. Value object: not normalised (a page of a ' +
    'series; merge pages with a Relay pagination policy keyed by the bars query arguments).',
  fields: (t) => ({
    instrument: t.field({
      type: InstrumentRef,
      description: 'The instrument the symbol was read as.',
      resolve: (p, _args, ctx) => ({
        instrument: p.instrument,
        name: knownName(marketDataDeps(ctx).marketData, p.instrument),
        exchange: null,
      }),
    }),
    interval: t.field({
      type: BarIntervalEnum,
      description: 'Length of each bar.',
      resolve: (p) => p.interval,
    }),
    from: t.expose('from', {
      type: 'DateTime',
      description: 'Start of the range (bar open times at or after it).',
    }),
    to: t.expose('to', { type: 'DateTime', description: 'End of the range, exclusive.' }),
    totalCount: t.exposeInt('totalCount', { description: 'Bars in the whole range, all pages together.' }),
    edges: t.field({
      type: [BarEdgeRef],
      description: 'The bars of this page with their cursors, oldest first.',
      resolve: (p) => p.bars.map((node) => ({ node })),
    }),
    nodes: t.field({
      type: [BarRef],
      description: 'The bars of this page, oldest first (the same as edges, without cursors).',
      resolve: (p) => [...p.bars],
    }),
    pageInfo: t.field({
      type: PageInfoRef,
      description: 'Cursors and whether more pages follow.',
      resolve: (p) => p,
    }),
    lineage: t.field({
      type: LineageRef,
      description: 'Where the bars came from: the provider, and whether the range was cached.',
      resolve: (p) => p.lineage,
    }),
  }),
});

builder.queryField('bars', (t) =>
  t.field({
    type: BarConnectionRef,
    description:
      'OHLCV history of an instrument, oldest bar first, in pages (the bars the indicators are computed from). ' +
      `Daily bars reach back years for equities, crypto pairs and fx pairs (${lookback('1d')} by default); ` +
      `intraday bars as far as the providers keep them. A range holds at most ${MAX_BARS_PER_REQUEST} bars.`,
    args: {
      symbol: t.arg.string({
        required: true,
        description:
          'AAPL, BRK.B, VOD.L, ^GSPC, EUR/USD, BTC/USDT; a bare coin (BTC) is the coin against USDT.',
      }),
      interval: t.arg({
        type: BarIntervalEnum,
        required: true,
        defaultValue: '1d',
        description: 'Length of one bar (default ONE_DAY).',
      }),
      from: t.arg({
        type: 'DateTime',
        description:
          'Start of the range; default `to` minus the interval default range (420 days for ONE_DAY).',
      }),
      to: t.arg({ type: 'DateTime', description: 'End of the range, exclusive; default now.' }),
      lookback: t.arg.string({
        description:
          'Instead of `from`: how far before `to` the range starts, a number and a unit m (minutes), h, d, w ' +
          'or y (365 days): `90d`, `6h`, `1y`.',
      }),
      first: t.arg.int({
        defaultValue: DEFAULT_BARS_PER_PAGE,
        description: `Bars per page, 1 to ${MAX_BARS_PER_PAGE}.`,
      }),
      after: t.arg.string({
        description: 'Cursor of the last bar seen (`pageInfo.endCursor`): the page starts after it.',
      }),
      assetClass: t.arg({ type: AssetClassEnum, description: 'Read the symbol as this asset class.' }),
      market: t.arg.string({ description: MARKET_ARGUMENT }),
    },
    resolve: (_root, args, ctx) =>
      barHistory(marketDataDeps(ctx).marketData, marketDataDeps(ctx).clock, {
        instrument: resolveInstrument(args.symbol, {
          ...(args.assetClass ? { assetClass: args.assetClass } : {}),
          ...(args.market ? { market: args.market } : {}),
        }),
        interval: args.interval,
        from: args.from ?? null,
        to: args.to ?? null,
        lookback: args.lookback ?? null,
        first: args.first ?? null,
        after: args.after ?? null,
      }),
  }),
);
