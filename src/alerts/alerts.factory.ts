import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Registry } from 'prom-client';
import type { FkDslService } from '../fk-dsl/fk-dsl.service.ts';
import type { MarketDataService } from '../market-data/market-data.service.ts';
import type { Clock } from '../platform/clock.ts';
import type { DatabaseHandle } from '../platform/db/database.ts';
import type { Jobs } from '../platform/jobs/jobs.ts';
import type { Logger } from '../platform/observability/logger.ts';
import { ANY_EVENT } from '../watchdogs/event-filter.ts';
import type { WatchdogsApi } from '../watchdogs/watchdogs-api.ts';
import { AlertService } from './alert.service.ts';
import { AlertsDomain } from './alerts.domain.ts';
import { ConditionEvaluator } from './conditions.ts';
import { AcceptanceJournal } from './delivery/acceptance-journal.ts';
import { createDeliverer } from './delivery/deliverer.ts';
import { deliveryMetrics } from './delivery/delivery.metrics.ts';
import { deliveryQueue } from './delivery/delivery.repository.ts';
import { DeliveryRunner } from './delivery/delivery.runner.ts';
import type { DeliveryGates } from './delivery/delivery-gates.ts';
import { PinnedConnections } from './delivery/pinned-http.ts';
import { SmtpPools } from './delivery/smtp-pools.ts';
import { parseAllowedHosts } from './delivery/ssrf.ts';
import { AlertEpisodes } from './episodes.service.ts';
import { firingMetrics } from './firing.metrics.ts';
import { AlertFiring } from './firing.ts';
import { fkDslConditions } from './fk-dsl-conditions.ts';
import { AlertGroups } from './groups.service.ts';
import { keyFromFile, parseSecretsKey, SecretBox } from './secrets.ts';
import { ThresholdEvaluator } from './thresholds.ts';

export interface AlertsConfig {
  readonly alerts: {
    readonly allowedHosts: readonly string[];
    readonly timeoutMs: number;
    readonly maxAttempts: number;
    readonly ownerConcurrency: number;
    readonly maxFiringsPerMinute: number;
    readonly maxPerOwner: number;
    readonly secretsKey: string | undefined;
  };
  readonly smtp: {
    readonly host: string | undefined;
    readonly port: number;
    readonly user: string | undefined;
    readonly password: string | undefined;
    readonly fromEmail: string | undefined;
    readonly plaintextAuthHosts: readonly string[];
  };
  readonly chat: { readonly botToken: string | undefined; readonly apiBaseUrl: string };
  readonly pagerduty: { readonly eventsUrl: string };
  readonly database: { readonly url: string | undefined; readonly dataDir: string };
}

export interface AlertsFactoryDeps {
  readonly config: AlertsConfig;
  readonly database: DatabaseHandle;
  readonly jobs: Jobs;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Only its event feed and stored events are used: alerts depend on the watchdog event, nothing more. */
  readonly watchdogs: Pick<WatchdogsApi, 'subscribe' | 'event'>;
  /** Quotes for price and volume thresholds. */
  readonly marketData: MarketDataService;
  /** Custom conditions: one FK-DSL SCAN each (fk-dsl-conditions.ts). */
  readonly fkDsl: Pick<FkDslService, 'compile' | 'execute'>;
  /** The app's metrics registry, for the firing metrics (none: not measured). */
  readonly registry?: Registry;
}

/** The key that seals alert secrets: SECRETS_KEY, else (embedded database only) a generated key file. */
export function secretsKeyFor(config: AlertsConfig): Buffer | undefined {
  if (config.alerts.secretsKey) return parseSecretsKey(config.alerts.secretsKey);
  if (config.database.url) return undefined;
  return keyFromFile(join(config.database.dataDir, 'secrets.key'));
}

/** Acceptances are noted in the data directory, when there is one (the embedded database's, or one made for it). */
function acceptanceJournal(config: AlertsConfig, logger: Logger): AcceptanceJournal {
  const { dataDir } = config.database;
  return new AcceptanceJournal(
    existsSync(dataDir) ? join(dataDir, 'alert-acceptances.journal') : undefined,
    logger,
  );
}

export function createAlerts(deps: AlertsFactoryDeps): AlertsDomain {
  const logger = deps.logger.child({ component: 'alerts' });
  const { config, database, jobs, clock } = deps;
  const conditions = fkDslConditions(deps.fkDsl, deps.marketData);
  const allowedHosts = parseAllowedHosts([...config.alerts.allowedHosts]);
  const store = new AlertService({
    db: database.db,
    clock,
    logger,
    secrets: new SecretBox(secretsKeyFor(config)),
    conditions,
    destinations: { allowedHosts, smtp: config.smtp },
    maxPerOwner: config.alerts.maxPerOwner,
  });
  const connections = new PinnedConnections();
  const mailPools = new SmtpPools();
  const deliver = createDeliverer((alert) => store.secretsOf(alert), {
    smtp: config.smtp,
    chat: config.chat,
    pagerdutyEventsUrl: config.pagerduty.eventsUrl,
    options: {
      timeoutMs: config.alerts.timeoutMs,
      allowedHosts,
      connections,
      smtp: config.smtp,
      mailPools,
    },
  });
  const groups = new AlertGroups({ database, jobs, clock, logger });
  const episodes = new AlertEpisodes({ database, jobs, clock, logger, groups });
  const firing = new AlertFiring({
    database,
    jobs,
    clock,
    logger,
    groups,
    maxPerMinute: config.alerts.maxFiringsPerMinute,
    storedEvent: (id) => deps.watchdogs.event(id),
    ...(deps.registry ? { observer: firingMetrics(deps.registry) } : {}),
  });
  // The gauges read the runner's gates when scraped.
  let gates: DeliveryGates | undefined;
  const observer =
    deps.registry &&
    deliveryMetrics(deps.registry, {
      queue: () => deliveryQueue(database.db, clock.now()),
      paused: () => gates?.health.paused ?? 0,
      inFlight: () => gates?.inFlight ?? 0,
    });
  const runner = new DeliveryRunner({
    database,
    jobs,
    clock,
    logger,
    deliver,
    maxAttempts: config.alerts.maxAttempts,
    attemptTimeoutMs: config.alerts.timeoutMs,
    ownerConcurrency: config.alerts.ownerConcurrency,
    journal: acceptanceJournal(config, logger),
    ...(observer ? { observer } : {}),
  });
  gates = runner.gates;
  const db = database.db;
  return new AlertsDomain({
    database,
    jobs,
    clock,
    logger,
    store,
    firing,
    runner,
    deliver,
    connections: { close: async () => void (await Promise.all([connections.close(), mailPools.close()])) },
    groups,
    episodes,
    thresholds: new ThresholdEvaluator({ db, clock, logger, marketData: deps.marketData, firing, episodes }),
    conditions: new ConditionEvaluator({ db, clock, logger, port: conditions, firing, episodes }),
    events: (listener) => deps.watchdogs.subscribe(ANY_EVENT, listener),
  });
}
