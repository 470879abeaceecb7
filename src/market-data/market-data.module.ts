import { isIdentifiedAdmin } from '../platform/access/principal.ts';
import { json } from '../platform/http/responses.ts';
import { defineModule } from '../platform/module.ts';
import { analyseSymbolPrompt } from './analyse-symbol.mcp.ts';
import * as barStudiesGraphql from './bar-studies.graphql.ts';
import * as sharedCacheTables from './cache/shared-cache.sql.ts';
import * as historyGraphql from './history.graphql.ts';
import * as instrumentGraphql from './instrument.graphql.ts';
import { lookupTools } from './lookup.tools.ts';
import type { MarketDataDeps } from './market-data.deps.ts';
import { MARKET_DATA_ERRORS } from './market-data.errors.ts';
import * as marketDataGraphql from './market-data.graphql.ts';
import { priceResource } from './market-data.mcp.ts';
import { marketDataTools } from './market-data.tools.ts';
import * as providersGraphql from './providers.graphql.ts';
import * as relayGraphql from './relay/relay.graphql.ts';
import * as relayTables from './relay/relay.sql.ts';
import * as priceStreamGraphql from './streams/price-stream.graphql.ts';
import * as coinSearchGraphql from './tools/coin-search.graphql.ts';
import * as toolsGraphql from './tools/tools.graphql.ts';

/**
 * Quotes, providers and the data tools; the price resource; the plain-WebSocket price routes and
 * their listing:
 *   /ws/stream             subscribe / unsubscribe / ping messages (see price-stream.protocol.ts)
 *   /ws/prices/{symbols}   comma-separated symbols, subscribed at connect (?interval_ms=&market=&asset_type=)
 *   GET /ws/connections    live connection and subscription counts (symbols with EXPOSE_INSTANCE_DETAILS)
 */
export const marketDataModule = defineModule<MarketDataDeps>({
  name: 'market-data',
  graphql: [
    marketDataGraphql,
    providersGraphql,
    toolsGraphql,
    coinSearchGraphql,
    instrumentGraphql,
    historyGraphql,
    barStudiesGraphql,
    priceStreamGraphql,
    relayGraphql,
  ],
  tables: [relayTables, sharedCacheTables],
  errors: MARKET_DATA_ERRORS,
  tools: [...marketDataTools, ...lookupTools],
  resources: [priceResource],
  prompts: [analyseSymbolPrompt],
  sockets: [
    {
      path: '/ws/stream',
      summary:
        'Price streams: send {"type":"subscribe","stream_type":"price","symbols":[...]} (also unsubscribe, ping).',
      onConnection: (deps) => deps.priceStreams.onStreamConnection,
    },
    {
      path: '/ws/prices/:symbols',
      summary:
        'Prices of comma-separated symbols, subscribed at connect (?interval_ms=&market=&asset_type=).',
      onConnection: (deps) => deps.priceStreams.onPricesConnection,
    },
  ],
  routes: [
    {
      methods: 'GET',
      path: '/ws/connections',
      summary: 'Open WebSocket connections, price subscriptions and upstream feeds.',
      handler:
        (deps, host) =>
        (_request, { viewer }) => {
          const s = deps.priceStreams.stats();
          const hub = deps.priceHub.stats();
          const connections = host.connections();
          // Which symbols are watched says what someone trades: counts only, unless the operator opts
          // in or an admin with a key asks.
          const expose = deps.config.exposeInstanceDetails || isIdentifiedAdmin(viewer.principal);
          return json({
            active_connections: connections.total,
            total_subscriptions: s.subscriptions,
            subscribed_symbol_count: s.symbols.length,
            ...(expose ? { subscribed_symbols: s.symbols } : {}),
            price_stream_connections: s.connections,
            connections_by_route: connections.byRoute,
            hub: {
              upstream_feeds: hub.feeds,
              subscribers: hub.subscribers,
              ...(expose ? { symbols: hub.symbols } : {}),
            },
          });
        },
    },
  ],
  start: (deps) => deps.priceRelay?.start(),
  stop: async (deps) => {
    deps.priceStreams.close();
    deps.priceHub.close();
    // Its leases given up, the other instances take its feeds at once.
    await deps.priceRelay?.stop();
    await Promise.all(deps.marketData.providers.map((p) => p.close?.()));
  },
  // After running jobs finished (they read market data too), before the database closes.
  release: async (deps) => {
    await deps.marketData.sharedCache?.close();
  },
});
