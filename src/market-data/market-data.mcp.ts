import type { AppDeps } from '../deps.ts';
import type { McpResourceTemplate, ResourceParams } from '../platform/mcp/mcp-resources.ts';
import type { PriceTick } from './hub/price-hub.ts';
import { instrumentKey, parseInstrument } from './instruments.ts';
import type { Instrument } from './types.ts';

/** A subscribed price resource changes at most once per this interval (the hub enforces it). */
export const PRICE_RESOURCE_INTERVAL_MS = 1_000;

/** What `vigil://prices/{symbol}` contains. */
export interface PriceResource {
  readonly symbol: string;
  readonly price: number;
  readonly change: number | null;
  /** In percent (1.5 = +1.5 %). */
  readonly change_percent: number | null;
  readonly volume: number | null;
  readonly currency: string;
  /** Time of the price itself, not of the read. */
  readonly as_of: string;
  readonly provider: string;
  /** True when the price comes from the simulated market (it describes no real market). */
  readonly simulated: boolean;
}

/**
 * `vigil://prices/{symbol}`: the arbitrated latest price of one instrument (symbol URI-encoded:
 * `vigil://prices/AAPL`, `vigil://prices/BTC%2FUSDT`). A subscription follows the price hub (the
 * same shared upstream feed as every other price stream) and reports at most one change a second.
 * While a symbol is watched, a read returns the hub's latest price when it is newer than the
 * cached quote, so a client reading after a notification sees the price that caused it.
 */
export function priceResource(deps: AppDeps): McpResourceTemplate {
  const latest = new Map<string, { tick: PriceTick | undefined; watchers: number }>();

  function instrumentOf(params: ResourceParams): Instrument {
    return parseInstrument(params.symbol ?? '');
  }

  return {
    uriTemplate: 'vigil://prices/{symbol}',
    name: 'price',
    title: 'Latest price',
    description:
      'The latest arbitrated price of one instrument: AAPL, BRK.B, ^GSPC, EURUSD=X, or a crypto pair written ' +
      'URI-encoded (BTC%2FUSDT). JSON: symbol, price, change, change_percent (percent), volume, currency, as_of ' +
      '(time of the price), provider, simulated. Subscribe to be told when it changes (at most once a second).',
    mimeType: 'application/json',

    async read(params) {
      const instrument = instrumentOf(params);
      const { value: quote, lineage } = await deps.marketData.quote(instrument);
      const tick = latest.get(instrumentKey(instrument))?.tick;
      if (tick && tick.asOf.getTime() >= quote.asOf.getTime()) return fromTick(tick);
      return {
        symbol: instrument.symbol,
        price: quote.price,
        change: quote.change,
        change_percent: quote.changePercent,
        volume: quote.volume,
        currency: quote.currency,
        as_of: quote.asOf.toISOString(),
        provider: lineage.used.join(','),
        simulated: lineage.simulated,
      } satisfies PriceResource;
    },

    async watch(params, onChange) {
      const instrument = instrumentOf(params);
      // An unknown symbol is refused here rather than becoming a subscription that never fires.
      await deps.marketData.quote(instrument);
      const key = instrumentKey(instrument);
      let entry = latest.get(key);
      if (!entry) {
        entry = { tick: undefined, watchers: 0 };
        latest.set(key, entry);
      }
      entry.watchers++;
      const watched = entry;
      // The hub replays its latest price to a newcomer at once: that is no change to report.
      let subscribing = true;
      const leave = deps.priceHub.subscribe(
        instrument,
        {
          tick(tick) {
            watched.tick = tick;
            if (!subscribing) onChange();
          },
        },
        PRICE_RESOURCE_INTERVAL_MS,
      );
      subscribing = false;
      let left = false;
      return () => {
        if (left) return;
        left = true;
        leave();
        watched.watchers--;
        if (watched.watchers === 0 && latest.get(key) === watched) latest.delete(key);
      };
    },
  };
}

function fromTick(tick: PriceTick): PriceResource {
  return {
    symbol: tick.symbol,
    price: tick.price,
    change: tick.change,
    change_percent: tick.changePercent,
    volume: tick.volume,
    currency: tick.currency,
    as_of: tick.asOf.toISOString(),
    provider: tick.provider,
    simulated: !tick.live,
  };
}
