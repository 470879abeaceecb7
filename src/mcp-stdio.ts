import type { App } from './app.ts';
import { loadConfigOrExit } from './config.ts';
import { onExpiry } from './platform/access/expiry.ts';
import { LOCAL_OPERATOR } from './platform/access/principal.ts';
import { type Viewer, viewerOf } from './platform/http/client-identity.ts';
import { exitAfterStop } from './platform/lifecycle.ts';
import { routeConsoleToStderr, serveMcpStdio } from './platform/mcp/mcp-stdio.ts';
import { createLogger } from './platform/observability/logger.ts';
import { StartPhases } from './platform/observability/start-phases.ts';
import { plainStartFailure } from './platform/start-failure.ts';
import { VERSION } from './platform/version.ts';
import { buildVigil } from './start.ts';

const NO_ADDRESS = { clientId: 'local:stdio', remoteAddress: undefined };

/**
 * The caller of every stdio request: the key in VIGIL_API_KEY when it is set (so a desktop client
 * can be given less than everything), else the local operator with every scope (whoever can start
 * this process already has the machine's data and configuration). A key that does not verify is a
 * start-up error, not a silent downgrade.
 */
async function stdioCaller(app: App): Promise<Viewer> {
  const key = app.deps.config.mcp.stdioApiKey;
  if (!key) return viewerOf(NO_ADDRESS, LOCAL_OPERATOR);
  const check = await app.deps.apiKeys.verify(key);
  if (!check.ok)
    throw new Error(
      `VIGIL_API_KEY: the API key is ${check.reason === 'invalid' ? 'not valid' : check.reason}`,
    );
  return viewerOf(NO_ADDRESS, check.principal);
}

/**
 * A stdio server acting as a key stops when the key is revoked (heard from any instance) or
 * expires: every call would be refused from then on, and the client should know at once.
 */
function endWithKey(app: App, viewer: Viewer): void {
  const { principal } = viewer;
  if (principal.kind !== 'key') return;
  const end = (why: string) => {
    app.deps.logger.error({ keyId: principal.id }, `VIGIL_API_KEY ${why}: stopping`);
    void app
      .stop()
      .catch(() => {})
      .finally(() => process.exit(1));
  };
  app.deps.apiKeys.onRevoked((id) => {
    if (id === principal.id) end('was revoked');
  });
  onExpiry(principal.expiresAt, () => end('expired'));
}

/**
 * MCP over stdio (`npm run -s mcp`): the same tools and resources as `/mcp`, for desktop MCP
 * clients that start a server process. `initialize` is answered at once, before the database is
 * open (clients give a server a few seconds to connect, and a first start creates the embedded
 * database); other requests wait for the start, whose phases are logged on stderr. Jobs and
 * schedules run as in the HTTP server; no port is opened. stdout carries protocol messages only
 * (logs go to stderr). The session ends, and the process exits 0 after a graceful stop, when stdin
 * ends or on SIGINT/SIGTERM.
 */
async function main(): Promise<void> {
  routeConsoleToStderr();
  const config = loadConfigOrExit();
  const logger = createLogger(config.logLevel, { bufferBytes: config.logBufferBytes });
  const phases = new StartPhases(logger);
  phases.sinceProcessStart('configuration read');
  let app: App | undefined;
  const shutdown = exitAfterStop(logger, () => app?.stop() ?? Promise.resolve());

  const serving = (async () => {
    app = await buildVigil(config, logger, phases);
    await phases.time('ready', 'starting the app', () => app!.startWithoutListening());
    const viewer = await stdioCaller(app);
    endWithKey(app, viewer);
    return { options: app.mcp, caller: { viewer } };
  })();
  const session = await serveMcpStdio({ info: { name: 'vigil', version: VERSION }, serving, logger });
  serving.then(
    () => logger.info({ tools: app?.tools.map((t) => t.name) }, 'mcp stdio server ready'),
    async (error: unknown) => {
      const plain = plainStartFailure(error);
      if (plain) process.stderr.write(`vigil mcp could not start: ${plain}\n`);
      else logger.fatal({ err: error }, 'could not start');
      await app?.stop().catch(() => {});
      process.exit(1);
    },
  );
  await session.closed;
  shutdown('stdin closed');
}

main().catch((error: unknown) => {
  process.stderr.write(
    `vigil mcp failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
