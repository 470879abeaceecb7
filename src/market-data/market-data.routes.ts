import type { AppDeps } from '../deps.ts';
import type { HttpRoutes } from '../platform/http/http-routes.ts';
import { json } from '../platform/http/responses.ts';
import type { UpgradeRouter } from '../platform/ws/upgrade-router.ts';
import { PriceStreams } from './streams/price-stream.ws.ts';

/**
 * The plain-WebSocket price routes and their connection listing:
 *   /ws/stream             subscribe / unsubscribe / ping messages (see price-stream.protocol.ts)
 *   /ws/prices/{symbols}   comma-separated symbols, subscribed at connect (?interval_ms=&market=&asset_type=)
 *   GET /ws/connections    live connection and subscription counts
 */
export function registerMarketDataRoutes(
  routes: HttpRoutes,
  upgrades: UpgradeRouter,
  deps: AppDeps,
): PriceStreams {
  const streams = new PriceStreams(
    deps.priceHub,
    deps.marketData,
    deps.logger.child({ component: 'price-streams' }),
  );
  upgrades.add('/ws/stream', streams.onStreamConnection);
  upgrades.add('/ws/prices/:symbols', streams.onPricesConnection);

  routes.add('GET', '/ws/connections', () => {
    const s = streams.stats();
    const hub = deps.priceHub.stats();
    return json({
      active_connections: upgrades.connectionCount,
      total_subscriptions: s.subscriptions,
      subscribed_symbols: s.symbols,
      price_stream_connections: s.connections,
      connections_by_route: upgrades.connectionsByRoute(),
      hub: { upstream_feeds: hub.feeds, subscribers: hub.subscribers, symbols: hub.symbols },
    });
  });
  return streams;
}
