import type { FundingRate, OrderBook, Transfer, VenueStatus } from '../../types.ts';
import type { Call, InstrumentCall, OrderBookCall, TransfersCall } from '../provider.ts';
import { ProviderError, unknownSymbol } from '../provider-errors.ts';
import { priceOf } from './bars.ts';
import { Derivatives, tickSize } from './derivatives.ts';
import type { SimulatedMarket } from './market.ts';
import { guard, ID, lookup, noData, validDate } from './requests.ts';
import { TRANSFER_ASSETS, TRANSFER_RETENTION_MS, TransferFeed } from './transfers.ts';
import { VENUE } from './universe.ts';
import { COINS } from './universe-markets.ts';
import { VenueBoard } from './venues.ts';

const MAX_BOOK_DEPTH = 1_000;
/** Resting size per book level, as a fraction of a coin's daily USD volume. */
const LEVEL_SHARE_OF_VOLUME = 2e-5;

/**
 * The simulated market's crypto venue and chain: order books (now or at any past time, a function
 * of the time), perpetual funding, large on-chain transfers and the venues' status, over the same
 * price paths as the quotes. `coins`: the watched coins the demo activity rotates over.
 */
export class SimulatedVenues {
  readonly #derivatives: Derivatives;
  readonly #transfers: TransferFeed;
  readonly #venues: VenueBoard;

  constructor(
    private readonly market: SimulatedMarket,
    demo: boolean,
    coins: readonly string[],
    private readonly now: () => number,
  ) {
    this.#derivatives = new Derivatives(market.rand, demo, coins);
    this.#transfers = new TransferFeed(market.rand, demo, coins);
    this.#venues = new VenueBoard(market.rand, demo);
  }

  async orderBook({ instrument, depth, at, signal }: OrderBookCall): Promise<OrderBook> {
    guard(signal);
    const known = lookup('orderBook', instrument);
    if (!Number.isInteger(depth) || depth < 1) {
      throw new ProviderError(ID, 'unsupported', `order book depth must be a positive integer, got ${depth}`);
    }
    // The book is a function of the time, so a past one is the book as it stood then.
    const nowMs = at === undefined ? this.now() : validDate(at, 'at');
    if (nowMs > this.now())
      throw new ProviderError(ID, 'unsupported', 'an order book of the future was asked for');
    const view = known.view!;
    const point = this.market.priceAt(this.market.path(view.path), nowMs);
    if (!point) throw noData(instrument.symbol, nowMs);
    const raw = Math.exp(point.log) * view.scale;
    const mid = view.invert ? 1 / raw : raw;
    const coin = known.coin!;
    const levelSize =
      (coin.path.dailyVolume * (view.volumeShare ?? 1) * LEVEL_SHARE_OF_VOLUME) / coin.path.level2025;
    const book = this.#derivatives.book(
      coin.symbol,
      mid,
      tickSize(mid),
      Math.min(depth, MAX_BOOK_DEPTH),
      levelSize,
      nowMs,
    );
    return { symbol: instrument.symbol, venue: VENUE, ...book, asOf: new Date(nowMs) };
  }

  async funding({ instrument, signal }: InstrumentCall): Promise<FundingRate> {
    guard(signal);
    const known = lookup('funding', instrument);
    const nowMs = this.now();
    const view = known.view!;
    const point = this.market.priceAt(this.market.path(view.path), nowMs);
    if (!point) throw noData(instrument.symbol, nowMs);
    const rate = this.#derivatives.fundingRate(known.coin!.symbol, nowMs);
    // The perpetual trades at a premium that carries the funding rate.
    return {
      symbol: instrument.symbol,
      venue: VENUE,
      rate,
      intervalHours: 8,
      markPrice: priceOf(view, point.log + rate / 2),
      nextFundingTime: new Date(this.#derivatives.nextFunding(nowMs)),
      asOf: new Date(nowMs),
    };
  }

  async transfers({ since, minUsd, assets, signal }: TransfersCall): Promise<Transfer[]> {
    guard(signal);
    const sinceMs = validDate(since, 'since');
    if (!Number.isFinite(minUsd) || minUsd < 0) {
      throw new ProviderError(ID, 'unsupported', `minUsd must be a non-negative number, got ${minUsd}`);
    }
    const indexes = (assets ?? TRANSFER_ASSETS.map((a) => a.asset)).map((asset) => {
      const i = TRANSFER_ASSETS.findIndex((a) => a.asset === asset.toUpperCase());
      if (i < 0) throw unknownSymbol(ID, asset, 'the simulated chain watcher does not track it');
      return i;
    });
    const nowMs = this.now();
    const fromMs = Math.max(sinceMs, nowMs - TRANSFER_RETENTION_MS);
    if (fromMs > nowMs) return [];
    return this.#transfers.between(fromMs, nowMs, minUsd, indexes, (coin, ms) => this.#usdPrice(coin, ms));
  }

  async venueStatus({ signal }: Call): Promise<VenueStatus[]> {
    guard(signal);
    return this.#venues.statusAt(this.now());
  }

  /** Last traded USD price of a coin (USDT and USDC through their USD pairs). */
  #usdPrice(coin: string, ms: number): number | undefined {
    const spec = COINS.find((c) => c.symbol === coin);
    const point = spec ? this.market.priceAt(this.market.path(spec.path), ms) : undefined;
    return point ? Math.exp(point.log) : undefined;
  }
}
