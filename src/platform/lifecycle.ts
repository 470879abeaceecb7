import type { Server } from 'node:http';
import type { Logger } from './observability/logger.ts';

export type AppState = 'built' | 'starting' | 'running' | 'stopping' | 'stopped';

export interface StopSteps {
  readonly logger: Logger;
  /** Everything below shares this budget (SHUTDOWN_TIMEOUT_MS). */
  readonly timeoutMs: number;
  readonly server: Server | undefined;
  readonly closeSockets: (timeoutMs: number) => Promise<void>;
  readonly stopModules: () => Promise<void>;
  readonly stopJobs: (timeoutMs: number) => Promise<void>;
  readonly dispose: () => Promise<void>;
}

/** The graceful stop, in the one order that loses nothing. */
export const runLifecycle = {
  async stop(steps: StopSteps): Promise<void> {
    const { logger, server } = steps;
    const deadline = Date.now() + steps.timeoutMs;
    const remaining = () => Math.max(100, deadline - Date.now());
    logger.info('shutting down');

    // 1. Stop accepting; keep-alive sockets with nothing in flight are closed now.
    const drained = server
      ? new Promise<void>((resolve) => server.close(() => resolve()))
      : Promise.resolve();
    server?.closeIdleConnections();
    // 2. WebSocket clients get 1001 and a bounded close handshake; then modules stop their streams.
    await steps.closeSockets(Math.min(2_000, remaining()));
    // 3. In-flight HTTP requests finish, or are cut at the deadline.
    await Promise.race([drained, sleep(remaining())]);
    server?.closeAllConnections();
    // 4. Modules stop (feeds, heartbeats), running jobs finish (bounded), then connections close.
    await steps.stopModules();
    await steps.stopJobs(remaining());
    await steps.dispose();
    logger.info('stopped');
  },
};

function sleep(ms: number) {
  return new Promise<void>((resolve) => setTimeout(resolve, ms).unref());
}
