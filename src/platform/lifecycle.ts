import type { Server } from 'node:http';
import type { Logger } from './observability/logger.ts';

export type AppState = 'built' | 'starting' | 'running' | 'stopping' | 'stopped';

export interface StopSteps {
  readonly logger: Logger;
  /** Every step below shares this budget (SHUTDOWN_TIMEOUT_MS). */
  readonly timeoutMs: number;
  readonly server: Server | undefined;
  /** WebSockets and other open streams: told to go away, with a bounded close handshake. */
  readonly closeStreams: (timeoutMs: number) => Promise<void>;
  readonly stopModules: () => Promise<void>;
  readonly stopJobs: (timeoutMs: number) => Promise<void>;
  readonly dispose: () => Promise<void>;
}

/** Even past the deadline, the last steps get this long to release connections and files. */
const FINAL_STEP_GRACE_MS = 1_000;

/**
 * The graceful stop, in the one order that loses nothing, bounded by one budget: a step that does
 * not finish in time (a database that no longer answers) is logged and left behind, so a stop
 * never hangs.
 */
export async function stopGracefully(steps: StopSteps): Promise<void> {
  const { logger, server } = steps;
  const deadline = Date.now() + steps.timeoutMs;
  const remaining = () => Math.max(0, deadline - Date.now());
  const bounded = async (name: string, run: () => Promise<void>, ms: number) => {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), ms).unref();
    });
    try {
      const outcome = await Promise.race([run().then(() => 'done' as const), timedOut]);
      if (outcome === 'timeout') logger.warn({ step: name, ms }, 'shutdown step did not finish in time');
    } catch (error) {
      logger.warn({ err: error, step: name }, 'shutdown step failed');
    } finally {
      clearTimeout(timer);
    }
  };
  logger.info('shutting down');

  // 1. Stop accepting; keep-alive sockets with nothing in flight are closed now.
  const drained = server ? new Promise<void>((resolve) => server.close(() => resolve())) : Promise.resolve();
  server?.closeIdleConnections();
  // 2. WebSocket clients get 1001 and a bounded close handshake; event streams (SSE, multipart,
  // MCP notifications) end, since they would otherwise hold the drain below to its deadline.
  const streamsMs = Math.min(2_000, remaining());
  await bounded('close streams', () => steps.closeStreams(streamsMs), streamsMs + 100);
  // Keep-alive connections whose stream just ended are idle now: close them too.
  server?.closeIdleConnections();
  // 3. In-flight HTTP requests finish, or are cut at the deadline.
  await bounded('drain requests', () => drained, remaining());
  server?.closeAllConnections();
  // 4. Modules stop (feeds, heartbeats), running jobs finish, then connections and files close.
  await bounded('stop modules', steps.stopModules, Math.max(remaining(), FINAL_STEP_GRACE_MS));
  const jobsMs = Math.max(remaining(), FINAL_STEP_GRACE_MS);
  await bounded('stop jobs', () => steps.stopJobs(jobsMs), jobsMs + 100);
  await bounded('release resources', steps.dispose, Math.max(remaining(), FINAL_STEP_GRACE_MS));
  logger.info('stopped');
}

/**
 * For entry points: the first SIGINT/SIGTERM (or a call of the returned function, e.g. when stdin
 * ends) stops gracefully and exits 0, or 1 if the stop fails; a second signal exits at once (the
 * first one delivered twice within a second counts once).
 */
export function exitAfterStop(logger: Logger, stop: () => Promise<void>): (reason: string) => void {
  let stopping = false;
  let first: { reason: string; at: number } | undefined;
  const shutdown = (reason: string) => {
    if (stopping) {
      // The same signal again at once is a copy, not a person insisting: a terminal signals the
      // whole process group and `npm start` forwards what it received to its child as well.
      if (first && reason === first.reason && Date.now() - first.at < DUPLICATE_SIGNAL_MS) return;
      if (isSignal(reason)) {
        logger.warn({ reason }, 'second signal: exiting without waiting');
        process.exit(1);
      }
      return;
    }
    stopping = true;
    first = { reason, at: Date.now() };
    logger.info({ reason }, isSignal(reason) ? 'signal received' : 'stopping');
    stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('unhandledRejection', (reason) => logger.error({ err: reason }, 'unhandled promise rejection'));
  return shutdown;
}

const isSignal = (reason: string) => reason === 'SIGINT' || reason === 'SIGTERM';

/** A repeat of the first signal within this long is the same request delivered twice. */
const DUPLICATE_SIGNAL_MS = 1_000;
