import { builder } from '../../builder.ts';
import { ServerInfoRef } from '../../server-info/server-info.graphql.ts';
import { marketDataDeps } from '../market-data.deps.ts';
import type { RelayStats } from './feed-coordinator.ts';

interface PriceRelayView {
  readonly mode: 'local' | RelayStats['mode'];
  readonly instanceId: string | null;
  readonly feedsOwned: number;
  readonly feedsFollowed: number;
  readonly ticksRelayedSent: number;
  readonly ticksRelayedReceived: number;
  readonly relayLagMs: number | null;
}

const PriceRelayModeEnum = builder.enumType('PriceRelayMode', {
  description: 'How this instance serves price feeds.',
  values: {
    LOCAL: {
      value: 'local',
      description: 'It polls or streams every feed itself (the embedded database, or PRICE_RELAY=off).',
    },
    RELAYED: {
      value: 'relayed',
      description:
        'Feeds are shared with the other instances on the Postgres server: one polls each, the others hear it relayed.',
    },
    DEGRADED: {
      value: 'degraded',
      description:
        'The relay is unavailable: this instance polls its own feeds until the database answers again.',
    },
  } as const,
});

const PriceRelayRef = builder.objectRef<PriceRelayView>('PriceRelay').implement({
  description:
    'The price feeds this instance serves, and the relay that shares them between instances. Value object: not normalised.',
  fields: (t) => ({
    mode: t.field({ type: PriceRelayModeEnum, description: 'How feeds are served.', resolve: (r) => r.mode }),
    instanceId: t.exposeID('instanceId', {
      nullable: true,
      description: "This instance's id in the relay (its feed leases name it); null when it does not relay.",
    }),
    feedsOwned: t.exposeInt('feedsOwned', { description: 'Feeds this instance polls or streams upstream.' }),
    feedsFollowed: t.exposeInt('feedsFollowed', {
      description: 'Feeds this instance serves from ticks relayed by their owner.',
    }),
    ticksRelayedSent: t.exposeInt('ticksRelayedSent', {
      description: 'Updates this instance relayed to the others since it started.',
    }),
    relayLagMs: t.exposeFloat('relayLagMs', {
      nullable: true,
      description:
        "Recent time from a feed owner's relaying of an update to its receipt here, in ms (an exponential average); null before any update was relayed here.",
    }),
    ticksRelayedReceived: t.exposeInt('ticksRelayedReceived', {
      description: 'Updates relayed to this instance (and served to its subscribers) since it started.',
    }),
  }),
});

builder.objectField(ServerInfoRef, 'priceRelay', (t) =>
  t.field({
    type: PriceRelayRef,
    description:
      'Price feeds: owned here or followed, and the relay between instances (see `vigil_price_*` metrics for the relay lag).',
    resolve: (_info, _args, ctx): PriceRelayView => {
      const deps = marketDataDeps(ctx);
      const stats = deps.priceRelay?.stats();
      if (!stats)
        return {
          mode: 'local',
          instanceId: null,
          feedsOwned: deps.priceHub.stats().feeds,
          feedsFollowed: 0,
          ticksRelayedSent: 0,
          ticksRelayedReceived: 0,
          relayLagMs: null,
        };
      return {
        mode: stats.mode,
        instanceId: stats.instanceId,
        feedsOwned: stats.owned,
        feedsFollowed: stats.followed,
        ticksRelayedSent: stats.sent,
        ticksRelayedReceived: stats.received,
        relayLagMs: stats.lagMs,
      };
    },
  }),
);
