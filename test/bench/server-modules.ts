/**
 * What the in-process fan-out benchmarks take from the server's code, as one module: loaded through
 * `bundledServer()` (bundled-server.ts), it is the code `npm start` runs.
 */
export { buildApp } from '../../src/app.ts';
export { parseConfig } from '../../src/config.ts';
export { createDeps } from '../../src/deps.ts';
export { modules } from '../../src/modules.ts';
export { createLogger } from '../../src/platform/observability/logger.ts';
export { WatchdogEventBus } from '../../src/watchdogs/event-bus.ts';
export { matchesEventFilter } from '../../src/watchdogs/event-filter.ts';
export { createFakeProvider } from '../support/fake-provider.ts';
