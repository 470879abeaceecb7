import { join } from 'node:path';
import type { MarketDataService } from '../market-data/market-data.service.ts';
import type { Clock } from '../platform/clock.ts';
import type { DatabaseHandle } from '../platform/db/database.ts';
import type { Jobs } from '../platform/jobs/jobs.ts';
import type { Logger } from '../platform/observability/logger.ts';
import { eventWire } from '../watchdogs/dashboard.wire.ts';
import { ANY_EVENT } from '../watchdogs/event-filter.ts';
import type { WatchdogsApi } from '../watchdogs/watchdogs-api.ts';
import { AlertService } from './alert.service.ts';
import { AlertsDomain } from './alerts.domain.ts';
import { ConditionEvaluator, type ConditionPort } from './conditions.ts';
import { createDeliverer } from './deliverer.ts';
import { PinnedConnections } from './delivery/pinned-http.ts';
import { parseAllowedHosts } from './delivery/ssrf.ts';
import { DeliveryRunner } from './delivery.runner.ts';
import { type AlertEvent, AlertFiring } from './firing.ts';
import { keyFromFile, parseSecretsKey, SecretBox } from './secrets.ts';
import { ThresholdEvaluator } from './thresholds.ts';

export interface AlertsConfig {
  readonly alerts: {
    readonly allowedHosts: readonly string[];
    readonly timeoutMs: number;
    readonly maxAttempts: number;
    readonly secretsKey: string | undefined;
  };
  readonly smtp: {
    readonly host: string | undefined;
    readonly port: number;
    readonly user: string | undefined;
    readonly password: string | undefined;
    readonly fromEmail: string | undefined;
  };
  readonly chat: { readonly botToken: string | undefined; readonly apiBaseUrl: string };
  readonly database: { readonly url: string | undefined; readonly dataDir: string };
}

export interface AlertsFactoryDeps {
  readonly config: AlertsConfig;
  readonly database: DatabaseHandle;
  readonly jobs: Jobs;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Only its event feed is used: alerts depend on the watchdog event, nothing more. */
  readonly watchdogs: Pick<WatchdogsApi, 'subscribe'>;
  /** Quotes for price and volume thresholds. */
  readonly marketData: MarketDataService;
  /** The FK-DSL, for custom conditions. */
  readonly conditions: ConditionPort;
}

/** The key that seals alert secrets: SECRETS_KEY, else (embedded database only) a generated key file. */
export function secretsKeyFor(config: AlertsConfig): Buffer | undefined {
  if (config.alerts.secretsKey) return parseSecretsKey(config.alerts.secretsKey);
  if (config.database.url) return undefined;
  return keyFromFile(join(config.database.dataDir, 'secrets.key'));
}

export function createAlerts(deps: AlertsFactoryDeps): AlertsDomain {
  const logger = deps.logger.child({ component: 'alerts' });
  const { config } = deps;
  const store = new AlertService({
    db: deps.database.db,
    clock: deps.clock,
    logger,
    secrets: new SecretBox(secretsKeyFor(config)),
    conditions: deps.conditions,
  });
  const connections = new PinnedConnections();
  const deliver = createDeliverer(store, {
    smtp: config.smtp,
    chat: config.chat,
    options: {
      timeoutMs: config.alerts.timeoutMs,
      allowedHosts: parseAllowedHosts([...config.alerts.allowedHosts]),
      connections,
    },
  });
  const firing = new AlertFiring({ database: deps.database, jobs: deps.jobs, clock: deps.clock, logger });
  const runner = new DeliveryRunner({
    database: deps.database,
    jobs: deps.jobs,
    clock: deps.clock,
    logger,
    alerts: store,
    deliver,
    maxAttempts: config.alerts.maxAttempts,
    attemptTimeoutMs: config.alerts.timeoutMs,
  });
  return new AlertsDomain({
    database: deps.database,
    jobs: deps.jobs,
    clock: deps.clock,
    logger,
    store,
    firing,
    runner,
    deliver,
    connections,
    thresholds: new ThresholdEvaluator({
      db: deps.database.db,
      clock: deps.clock,
      logger,
      marketData: deps.marketData,
      firing,
    }),
    conditions: new ConditionEvaluator({
      db: deps.database.db,
      clock: deps.clock,
      logger,
      port: deps.conditions,
      firing,
    }),
    events: (listener) =>
      deps.watchdogs.subscribe(ANY_EVENT, (event) => listener(eventWire(event) as unknown as AlertEvent)),
  });
}
