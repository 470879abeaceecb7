import { moduleDeps } from '../context.ts';
import type { Clock } from '../platform/clock.ts';
import type { ToolCallRecorder } from '../sessions/tool-calls.port.ts';
import type { PriceHub } from './hub/price-hub.ts';
import type { MarketDataService } from './market-data.service.ts';
import type { FeedCoordinator } from './relay/feed-coordinator.ts';
import type { PriceStreams } from './streams/price-stream.ws.ts';

/** What the market-data module needs from the app (the composition root wires these). */
export interface MarketDataDeps {
  readonly config: {
    readonly exposeInstanceDetails: boolean;
    /** The symbols the watchdogs watch: `resources/list` names their price resources. */
    readonly watchdogs: { readonly symbols: readonly string[] };
  };
  readonly clock: Clock;
  readonly marketData: MarketDataService;
  readonly priceHub: PriceHub;
  /** Price feeds shared with the other instances on the Postgres server (none: one instance, or PRICE_RELAY=off). */
  readonly priceRelay?: FeedCoordinator | undefined;
  readonly priceStreams: PriceStreams;
  /** Where the data tools report a call that carries a sessionId (the sessions domain records it). */
  readonly toolCalls: ToolCallRecorder;
}

/** The market-data module's dependencies in its resolvers. */
export const marketDataDeps = moduleDeps<MarketDataDeps>();
