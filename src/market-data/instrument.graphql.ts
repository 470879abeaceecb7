import { builder } from '../builder.ts';
import { errorCodeEnum, exposedErrorCode } from '../error-codes.graphql.ts';
import type { Lineage } from './arbitration/lineage.ts';
import { instrumentKey } from './instruments.ts';
import { MAX_SYMBOLS_PER_REQUEST } from './limits.ts';
import {
  type AnsweredQuote,
  type BatchQuote,
  findInstruments,
  type InstrumentInfo,
  quoteBatch,
  quoteOne,
  type SymbolFailure,
} from './lookup.service.ts';
import { marketDataDeps } from './market-data.deps.ts';
import { AssetClassEnum, LineageRef, MARKET_ARGUMENT, QuoteRef, quoteOf } from './market-data.graphql.ts';
import { DEFAULT_SEARCH_RESULTS, MAX_QUERY_LENGTH, MAX_SEARCH_RESULTS } from './search/instrument-search.ts';

/**
 * Instruments as entities, the instrument search, and the quotes: `quote` (one symbol) and `quotes`
 * (a watchlist in one round trip) answer the same shape, `requested`, `instrument`, `quote` and
 * `lineage` (and a batch's per-symbol `error`), so one selection reads either.
 */

export const InstrumentRef = builder.objectRef<InstrumentInfo>('Instrument').implement({
  description:
    'An instrument in Vigil notation and, where a provider says, its name and exchange. Entity: id is the ' +
    'instrument key (`equity:US:AAPL`, `etf:US:SPY`, `crypto:BTC/USDT`, `fx:EUR/USD`, `index:^GSPC`, ' +
    '`macro:US10Y`).',
  fields: (t) => ({
    id: t.id({
      description: 'Stable id: the instrument key (asset class, market code of a listing, canonical symbol).',
      resolve: (i) => instrumentKey(i.instrument),
    }),
    symbol: t.string({
      description: 'Canonical symbol: AAPL, BRK.B, BTC/USDT, EUR/USD, ^GSPC, US10Y.',
      resolve: (i) => i.instrument.symbol,
    }),
    assetClass: t.field({
      type: AssetClassEnum,
      description: 'What kind of instrument it is.',
      resolve: (i) => i.instrument.assetClass,
    }),
    market: t.string({
      nullable: true,
      description: 'Market code of a listing (US, UK, DE...); null for crypto, fx, indices and macro series.',
      resolve: (i) => i.instrument.market ?? null,
    }),
    baseAsset: t.string({
      nullable: true,
      description: 'Crypto and fx: the asset priced (BTC, EUR); null otherwise.',
      resolve: (i) => i.instrument.base ?? null,
    }),
    quoteAsset: t.string({
      nullable: true,
      description: 'Crypto and fx: the asset the price is in (USDT, USD); null otherwise.',
      resolve: (i) => i.instrument.quote ?? null,
    }),
    name: t.string({
      nullable: true,
      description: 'Name (Apple Inc., Bitcoin), where a provider gives one.',
      resolve: (i) => i.name,
    }),
    exchange: t.string({
      nullable: true,
      description: 'Exchange or venue of the listing (NasdaqGS), where a provider gives one.',
      resolve: (i) => i.exchange,
    }),
  }),
});

const InstrumentSearchRef = builder
  .objectRef<{ query: string; matches: InstrumentInfo[]; lineage: Lineage }>('InstrumentSearch')
  .implement({
    description: 'Instruments matching a search, best first. Value object: not normalised (one per search).',
    fields: (t) => ({
      query: t.exposeString('query', { description: 'The search text as it was used (trimmed).' }),
      instruments: t.field({
        type: [InstrumentRef],
        description:
          'Matches, best first: the symbol itself, then symbol prefixes, then names starting with the text, ' +
          'then names containing it. Only instruments a configured provider can quote.',
        resolve: (s) => s.matches,
      }),
      lineage: t.field({
        type: LineageRef,
        description: 'Providers searched (search endpoints, the simulated universe) and any that failed.',
        resolve: (s) => s.lineage,
      }),
    }),
  });

const QuoteErrorRef = builder.objectRef<SymbolFailure>('QuoteError').implement({
  description: 'Why one symbol of a batch has no quote. Value object: not normalised.',
  fields: (t) => ({
    code: t.field({
      type: errorCodeEnum(),
      description: 'The error code, as `extensions.code` would carry it (UNKNOWN_SYMBOL, BAD_USER_INPUT...).',
      resolve: (e) => exposedErrorCode(e.code),
    }),
    message: t.exposeString('message', { description: 'What went wrong, in words.' }),
  }),
});

const QuoteResultRef = builder.objectRef<BatchQuote>('QuoteResult').implement({
  description:
    'One symbol of a batch quote: `quote` and `lineage`, or `error`. Value object: not normalised (the ' +
    '`instrument` and `quote` inside are entities).',
  fields: (t) => ({
    requested: t.exposeString('requested', { description: 'The symbol as it was written in `symbols`.' }),
    instrument: t.field({
      type: InstrumentRef,
      nullable: true,
      description: 'The instrument the symbol was read as; null when it could not be read.',
      resolve: (r) => r.instrument,
    }),
    quote: t.field({
      type: QuoteRef,
      nullable: true,
      description: 'The arbitrated latest quote; null when `error` says why there is none.',
      resolve: (r) => (r.quote && r.instrument ? quoteOf(r.instrument.instrument, r.quote.value) : null),
    }),
    lineage: t.field({
      type: LineageRef,
      nullable: true,
      description: 'Where the quote came from; null with `error`.',
      resolve: (r) => r.quote?.lineage ?? null,
    }),
    error: t.field({
      type: QuoteErrorRef,
      nullable: true,
      description: 'Why there is no quote (unknown symbol, providers failing...); null when there is one.',
      resolve: (r) => r.error,
    }),
  }),
});

const INSTRUMENT_FIELDS = 'Use `instrument { symbol assetClass }`, the shape `quotes` answers too.';

const SourcedQuoteRef = builder.objectRef<AnsweredQuote>('SourcedQuote').implement({
  description:
    'The arbitrated latest quote of an instrument with its lineage: the same fields as each `QuoteResult` ' +
    'of `quotes` (`requested`, `instrument`, `quote`, `lineage`). Entity: id is the instrument key.',
  fields: (t) => ({
    id: t.id({
      description: 'Stable id: the instrument key (asset class, market code of a listing, canonical symbol).',
      resolve: (s) => instrumentKey(s.instrument.instrument),
    }),
    requested: t.exposeString('requested', { description: 'The symbol as it was written in `symbol`.' }),
    instrument: t.field({
      type: InstrumentRef,
      description: 'The instrument the symbol was read as, with its name and exchange where known.',
      resolve: (s) => s.instrument,
    }),
    quote: t.field({
      type: QuoteRef,
      description: 'The arbitrated latest quote.',
      resolve: (s) => quoteOf(s.instrument.instrument, s.quote.value),
    }),
    lineage: t.field({
      type: LineageRef,
      description: 'Where the quote came from.',
      resolve: (s) => s.quote.lineage,
    }),
    symbol: t.string({
      description: 'Canonical symbol of the instrument.',
      deprecationReason: INSTRUMENT_FIELDS,
      resolve: (s) => s.instrument.instrument.symbol,
    }),
    assetClass: t.field({
      type: AssetClassEnum,
      description: 'What kind of instrument the symbol was read as.',
      deprecationReason: INSTRUMENT_FIELDS,
      resolve: (s) => s.instrument.instrument.assetClass,
    }),
  }),
});

builder.queryField('quote', (t) =>
  t.field({
    type: SourcedQuoteRef,
    description:
      'The arbitrated latest quote of any instrument (see searchBySymbol for the notations), in the shape ' +
      'each result of `quotes` has.',
    args: {
      symbol: t.arg.string({
        required: true,
        description: 'AAPL, BRK.B, VOD.L, ^GSPC, EURUSD=X or EUR/USD, BTC/USDT, US10Y.',
      }),
      assetClass: t.arg({
        type: AssetClassEnum,
        description:
          'Left out, a bare coin (BTC) is read as the coin against USDT, as the price streams read it; say EQUITY for a listed ticker of that name.',
      }),
      market: t.arg.string({ description: MARKET_ARGUMENT }),
    },
    resolve: (_root, args, ctx) =>
      quoteOne(marketDataDeps(ctx).marketData, args.symbol, {
        ...(args.assetClass ? { assetClass: args.assetClass } : {}),
        ...(args.market ? { market: args.market } : {}),
      }),
  }),
);

builder.queryField('quotes', (t) =>
  t.field({
    type: [QuoteResultRef],
    description:
      `Latest quotes of up to ${MAX_SYMBOLS_PER_REQUEST} symbols in one round trip, in the order asked. Each ` +
      'symbol stands alone: one that is unknown or cannot be priced carries its `error`, the others their ' +
      'quotes. Symbols are read like everywhere else: a bare coin (BTC) is the coin against USDT.',
    args: {
      symbols: t.arg.stringList({
        required: true,
        description: `1 to ${MAX_SYMBOLS_PER_REQUEST} symbols: AAPL, BRK.B, BTC, BTC-USD, EUR/USD, ^GSPC.`,
      }),
      assetClass: t.arg({
        type: AssetClassEnum,
        description: 'Read every symbol as this asset class (EQUITY keeps BTC the listed fund).',
      }),
      market: t.arg.string({ description: MARKET_ARGUMENT }),
    },
    resolve: (_root, args, ctx) =>
      quoteBatch(marketDataDeps(ctx).marketData, args.symbols, {
        ...(args.assetClass ? { assetClass: args.assetClass } : {}),
        ...(args.market ? { market: args.market } : {}),
      }),
  }),
);

builder.queryField('instruments', (t) =>
  t.field({
    type: InstrumentSearchRef,
    description:
      'Instrument search by name or symbol prefix (`apple` finds AAPL, `bitcoin` the BTC pairs), from the ' +
      'search endpoints of the configured providers (Yahoo, Finnhub, CoinGecko) or the simulated universe.',
    args: {
      query: t.arg.string({
        required: true,
        description: `Part of a name or a symbol, 1 to ${MAX_QUERY_LENGTH} characters.`,
      }),
      first: t.arg.int({
        defaultValue: DEFAULT_SEARCH_RESULTS,
        description: `Most matches returned, 1 to ${MAX_SEARCH_RESULTS}.`,
      }),
    },
    resolve: async (_root, args, ctx) => {
      const { value, lineage } = await findInstruments(
        marketDataDeps(ctx).marketData,
        args.query,
        args.first,
      );
      return {
        query: args.query.trim(),
        matches: value.map((m) => ({ instrument: m.instrument, name: m.name, exchange: m.exchange })),
        lineage,
      };
    },
  }),
);
