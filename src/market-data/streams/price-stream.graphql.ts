import { builder } from '../../builder.ts';
import { InstrumentRef } from '../instrument.graphql.ts';
import { MarketStateEnum, PriceTickRef } from '../market-data.graphql.ts';

/**
 * What a price subscription adds to each tick beyond the price: whether it is the snapshot that
 * opens the stream of a symbol, the state of the symbol's market, and how the symbol was read.
 */
builder.objectFields(PriceTickRef, (t) => ({
  snapshot: t.exposeBoolean('snapshot', {
    description:
      'True for the first tick of each symbol: the last known price when the subscription started, sent at ' +
      'once even while the market is shut (then `asOf` may be hours old). Later ticks are live updates.',
  }),
  marketState: t.field({
    type: MarketStateEnum,
    description:
      "State of the instrument's market when the tick was sent: REGULAR or CONTINUOUS while it trades, PRE " +
      'or POST around the session, CLOSED when it is shut (no live ticks follow until it opens).',
    resolve: (p) => p.marketState,
  }),
  instrument: t.field({
    type: InstrumentRef,
    description: 'The instrument the subscribed symbol was read as (BTC is read as BTC/USDT), with its name.',
    resolve: (p) => ({
      instrument: p.instrument,
      name: p.resolved?.name ?? null,
      exchange: p.resolved?.exchange ?? null,
    }),
  }),
  requested: t.stringList({
    description: 'The symbols of the subscription that name this instrument, as written (`BTC`, `btcusdt`).',
    resolve: (p) => [...(p.resolved?.requested ?? [p.symbol])],
  }),
}));
