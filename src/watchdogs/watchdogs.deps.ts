import { moduleDeps } from '../context.ts';
import type { Scheduler } from '../platform/clock.ts';
import type { Logger } from '../platform/observability/logger.ts';
import type { WatchdogService } from './watchdog.service.ts';

/** What the watchdogs module needs from the app (the composition root wires these). */
export interface WatchdogsDeps {
  readonly watchdogs: WatchdogService;
  /** Drives the dashboard stream's periodic messages and the event resource's pacing. */
  readonly clock: Scheduler;
  readonly logger: Logger;
}

/** The watchdogs module's dependencies in its resolvers. */
export const watchdogsDeps = moduleDeps<WatchdogsDeps>();
