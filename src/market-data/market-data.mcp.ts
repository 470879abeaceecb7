import type {
  ListedResource,
  McpResourceTemplate,
  ResourceCall,
  ResourceParams,
} from '../platform/mcp/mcp-resources.ts';
import type { PriceHub, PriceTick } from './hub/price-hub.ts';
import { instrumentKey, resolveInstrument } from './instruments.ts';
import { joined } from './tools/tool-wire.ts';

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
  /** Providers whose answer was used, joined as in the data tools (`a, b`). */
  readonly provider: string;
  /** True when the price comes from the simulated market (it describes no real market). */
  readonly simulated: boolean;
}

/** The GraphQL `quote` field a read runs, as the reader (rate limits, identity, error codes). */
const PRICE_QUERY = /* GraphQL */ `
  query PriceResource($symbol: String!) {
    quote(symbol: $symbol) {
      instrument { symbol }
      quote { price change changePercent volume currency asOf }
      lineage { used simulated }
    }
  }`;

interface PriceData {
  readonly quote: {
    readonly instrument: { readonly symbol: string };
    readonly quote: {
      readonly price: number;
      readonly change: number | null;
      readonly changePercent: number | null;
      readonly volume: number | null;
      readonly currency: string;
      readonly asOf: string;
    };
    readonly lineage: { readonly used: readonly string[]; readonly simulated: boolean };
  };
}

/**
 * `vigil://prices/{symbol}`: the arbitrated latest price of one instrument (symbol URI-encoded:
 * `vigil://prices/AAPL`, `vigil://prices/BTC%2FUSDT`). A read runs the GraphQL `quote` query as the
 * reader, so it is validated, rate limited and answered like `quote` on every other surface.
 *
 * A subscription is checked with the same query (an unknown symbol or a rate limit refuses it as a
 * read would), then follows the price hub (the shared upstream feed behind the GraphQL `prices`
 * subscription) and reports at most one change a second. While a symbol is watched, a read returns
 * the hub's latest price when it is newer than the quote, so a client reading after a notification
 * sees the price that caused it.
 */
export function priceResource(deps: {
  readonly priceHub: PriceHub;
  readonly config: { readonly watchdogs: { readonly symbols: readonly string[] } };
}): McpResourceTemplate {
  let listed: readonly ListedResource[] | undefined;
  const latest = new Map<string, { tick: PriceTick | undefined; watchers: number }>();

  async function quote(params: ResourceParams, call: ResourceCall) {
    const { quote } = await call<PriceData>(PRICE_QUERY, { symbol: params.symbol ?? '' });
    // The query accepted the symbol, so it parses here the same way.
    return { data: quote, instrument: resolveInstrument(params.symbol ?? '') };
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

    // The watched symbols are configuration: listed as resources once, when first asked.
    list() {
      listed ??= watchedPriceResources(deps.config.watchdogs.symbols);
      return listed;
    },

    async read(params, call) {
      const { data, instrument } = await quote(params, call);
      const tick = latest.get(instrumentKey(instrument))?.tick;
      if (tick && tick.asOf.getTime() >= Date.parse(data.quote.asOf)) return fromTick(tick);
      return {
        symbol: data.instrument.symbol,
        price: data.quote.price,
        change: data.quote.change,
        change_percent: data.quote.changePercent,
        volume: data.quote.volume,
        currency: data.quote.currency,
        as_of: data.quote.asOf,
        provider: joined(data.lineage.used),
        simulated: data.lineage.simulated,
      } satisfies PriceResource;
    },

    async watch(params, onChange, call) {
      // An unknown symbol is refused here rather than becoming a subscription that never fires.
      const { instrument } = await quote(params, call);
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

/**
 * The price resources `resources/list` names: one per symbol the watchdogs watch (WATCHDOG_SYMBOLS,
 * by default the SCAN universes), in configuration order, each once however it is spelt. The URI
 * keeps the configured spelling (`VOD.L` names the London listing, its canonical `VOD` would not).
 * A symbol that does not parse is left out: the watchdogs report it in their health.
 */
export function watchedPriceResources(symbols: readonly string[]): ListedResource[] {
  const seen = new Set<string>();
  const resources: ListedResource[] = [];
  for (const configured of symbols) {
    const written = configured.trim().toUpperCase();
    let key: string;
    try {
      key = instrumentKey(resolveInstrument(written));
    } catch {
      continue;
    }
    if (seen.has(key)) continue;
    seen.add(key);
    resources.push({
      uri: `vigil://prices/${encodeURIComponent(written)}`,
      name: `price:${written}`,
      title: `Latest price of ${written}`,
      description: `The latest arbitrated price of ${written}, a symbol the watchdogs watch.`,
    });
  }
  return resources;
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
