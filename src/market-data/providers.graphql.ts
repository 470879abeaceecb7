import { builder } from '../builder.ts';
import { enumValues } from '../platform/graphql/enum-values.ts';
import { roundFloat, roundNullable } from '../quant/round.ts';
import type { HealthSnapshot } from './arbitration/health.ts';
import { marketDataDeps } from './market-data.deps.ts';
import type { Capability, ProviderInfo } from './providers/provider.ts';

/** The configured providers, what they offer and their measured health. */

const CAPABILITY_DESCRIPTIONS: Readonly<Record<Capability, string>> = {
  quote: 'Latest quotes.',
  bars: 'OHLCV history.',
  profile: 'Company or asset profile and key statistics.',
  cryptoStats: 'Rolling 24 h statistics of crypto pairs.',
  orderBook: 'Order-book depth of crypto pairs.',
  funding: 'Perpetual funding rates.',
  earnings: 'Earnings reports and estimates.',
  transfers: 'Large on-chain and exchange transfers.',
  largeTrades: 'Large exchange trades of crypto pairs.',
  venueStatus: 'Health of trading venues.',
  stream: 'Live price streams (pushed, not polled).',
  search: 'Instrument search by name or symbol.',
};

const CapabilityEnum = builder.enumType('ProviderCapability', {
  description: 'A kind of data a provider can deliver.',
  values: enumValues(CAPABILITY_DESCRIPTIONS),
});

const ProviderHealthRef = builder.objectRef<HealthSnapshot>('ProviderHealth').implement({
  description:
    'Measured health of one provider for one kind of data. Averages are time-decayed (recent calls weigh ' +
    'most; half-life 5 minutes). Entity: id is `<provider id>:<capability>` (`yahoo:quote`).',
  fields: (t) => ({
    id: t.id({
      description: 'Stable id: the provider id and the capability, `yahoo:quote`.',
      resolve: (h) => `${h.provider}:${h.capability}`,
    }),
    capability: t.field({
      type: CapabilityEnum,
      description: 'The kind of data measured.',
      resolve: (h) => h.capability,
    }),
    calls: t.exposeInt('calls', { description: 'Calls counted since the process started.' }),
    failures: t.exposeInt('failures', { description: 'Failed calls since the process started.' }),
    errorRate: t.float({
      description: 'Time-decayed share of failed calls, as a fraction (0.25 = 25 %).',
      resolve: (h) => roundFloat(h.errorRate),
    }),
    latencyMs: t.float({
      nullable: true,
      description: 'Time-decayed latency of successful calls, in ms; null before the first success.',
      resolve: (h) => roundNullable(h.latencyMs),
    }),
    stalenessMs: t.float({
      nullable: true,
      description:
        'Time-decayed age of the data returned (now minus its as-of time), in ms; null if unknown.',
      resolve: (h) => roundNullable(h.stalenessMs),
    }),
    lastSuccessAt: t.expose('lastSuccessAt', {
      type: 'DateTime',
      nullable: true,
      description: 'Last successful call; null if none.',
    }),
    lastFailureAt: t.expose('lastFailureAt', {
      type: 'DateTime',
      nullable: true,
      description: 'Last failed call; null if none.',
    }),
    lastError: t.exposeString('lastError', {
      nullable: true,
      description: 'Message of the last failure; null if none.',
    }),
    score: t.float({
      description:
        'Ranking score in (0, 1], higher is better: reliability, then latency (1 s halves it), then staleness ' +
        '(a minute halves it). Arbitration asks the highest score first.',
      resolve: (h) => roundFloat(h.score),
    }),
  }),
});

const ProviderRef = builder.objectRef<ProviderInfo>('MarketDataProvider').implement({
  description: 'A configured source of market data. Entity: id is the provider id.',
  fields: (t) => ({
    id: t.exposeID('id', {
      description:
        'Stable provider id, as used in configuration and lineage: `simulated`, `yahoo`, `binance`...',
    }),
    displayName: t.exposeString('displayName', { description: 'Human-readable name.' }),
    live: t.exposeBoolean('live', { description: 'False for the simulated market.' }),
    capabilities: t.field({
      type: [CapabilityEnum],
      description: 'The kinds of data it can deliver.',
      resolve: (p) => [...p.capabilities],
    }),
    health: t.field({
      type: [ProviderHealthRef],
      description: 'Measured health per capability it has been called for.',
      resolve: (p, _args, ctx) =>
        marketDataDeps(ctx)
          .marketData.health()
          .filter((h) => h.provider === p.id),
    }),
  }),
});

builder.queryField('marketDataProviders', (t) =>
  t.field({
    type: [ProviderRef],
    description: 'The configured market-data providers, what they offer and how healthy they are.',
    resolve: (_root, _args, ctx) => marketDataDeps(ctx).marketData.providersInfo(),
  }),
);
