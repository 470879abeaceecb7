import type { Clock } from '../platform/clock.ts';
import type { DatabaseHandle } from '../platform/db/database.ts';
import type { Logger } from '../platform/observability/logger.ts';
import { SessionAnalyticsService } from './session.analytics.ts';
import { SessionService } from './session.service.ts';
import { SessionTracker } from './session.tracker.ts';
import { SessionUpkeep } from './session.upkeep.ts';

/** The SESSION_* settings (see config.ts). */
export interface SessionsSettings {
  readonly defaultTtlHours: number;
  readonly maxTtlHours: number;
  readonly cleanupIntervalMinutes: number;
  readonly retentionDays: number;
  readonly maxQueriesPerSession: number;
  readonly enableAnalytics: boolean;
}

export interface SessionsOptions {
  readonly settings: SessionsSettings;
  readonly database: DatabaseHandle;
  readonly clock: Clock;
  readonly logger: Logger;
}

/** Analysis sessions: the store, the data tools' recorder, analytics and the scheduled upkeep. */
export interface SessionsDomain {
  readonly store: SessionService;
  readonly tracker: SessionTracker;
  readonly analytics: SessionAnalyticsService;
  readonly upkeep: SessionUpkeep;
}

export function createSessions(o: SessionsOptions): SessionsDomain {
  const logger = o.logger.child({ component: 'sessions' });
  const { settings, database, clock } = o;
  const store = new SessionService({ database, clock, logger, settings });
  return {
    store,
    tracker: new SessionTracker({
      database,
      clock,
      sessions: store,
      maxQueriesPerSession: settings.maxQueriesPerSession,
    }),
    analytics: new SessionAnalyticsService({ database, clock, enabled: settings.enableAnalytics }),
    upkeep: new SessionUpkeep({
      database,
      clock,
      logger,
      cleanupIntervalMinutes: settings.cleanupIntervalMinutes,
      retentionDays: settings.retentionDays,
      analytics: settings.enableAnalytics,
      maxQueriesPerSession: settings.maxQueriesPerSession,
    }),
  };
}
