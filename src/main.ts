import { loadConfigOrExit } from './config.ts';
import { PortListener } from './platform/http/port-listener.ts';
import { exitAfterStop } from './platform/lifecycle.ts';
import { createLogger } from './platform/observability/logger.ts';
import { StartPhases } from './platform/observability/start-phases.ts';
import { plainStartFailure } from './platform/start-failure.ts';
import { VERSION } from './platform/version.ts';
import { buildVigil } from './start.ts';

/**
 * Composition root: the only place that reads configuration, opens the port and installs signal
 * handlers. The order makes a start quick and its failures plain: the configuration is checked
 * whole, the port is bound before any slow work (a taken port is one line, at once), and only then
 * do the app's code and the database load, side by side (start.ts). Requests that arrive while it
 * starts wait for the app; `/readyz` says what is under way. SIGINT/SIGTERM stop gracefully and
 * exit 0; a second signal exits at once.
 */
async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const logger = createLogger(config.logLevel, { bufferBytes: config.logBufferBytes });
  let listener: PortListener | undefined;
  const phases = new StartPhases(logger, (underWay) => {
    if (listener) listener.phase = underWay.join(', ') || 'starting';
  });
  phases.sinceProcessStart('configuration read');
  try {
    listener = await phases.time('port open', 'opening the port', () =>
      PortListener.open({ host: config.host, port: config.port, timeouts: config.http, version: VERSION }),
    );
  } catch (error) {
    return failed(error);
  }
  const port = listener;
  let stop = () => port.close();
  exitAfterStop(logger, () => stop());

  try {
    const app = await buildVigil(config, logger, phases);
    stop = () => app.stop();
    await phases.time('ready', 'starting the app', () => app.start({ listener: port, host: config.host }));
  } catch (error) {
    port.fail('the server could not start');
    await stop().catch(() => {});
    return failed(error);
  }

  function failed(error: unknown): never {
    const plain = plainStartFailure(error);
    if (plain) process.stderr.write(`vigil could not start: ${plain}\n`);
    else logger.fatal({ err: error }, 'could not start');
    process.exit(1);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(
    `vigil failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
