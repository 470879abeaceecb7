/**
 * A Vigil instance for the test that kills one between its events and their firings: the app as
 * `npm start` composes it (no port), on the database its environment names, that stores watchdog
 * events when told to on stdin. Lines in:
 *   `fail`       every firing fails as a lock timeout does (firing-faults.ts);
 *   `publish N`  N events stored (as the watchdogs store them); once no firing job of this database
 *                runs or is due within half a second, their ids are written as a JSON line.
 * It writes `ready` when started, and is then killed (SIGKILL) by the test.
 */
import { createInterface } from 'node:readline';
import { buildApp } from '../../src/app.ts';
import { parseConfig } from '../../src/config.ts';
import { createDeps } from '../../src/deps.ts';
import { modules } from '../../src/modules.ts';
import { createLogger } from '../../src/platform/observability/logger.ts';
import { WatchdogEventBus } from '../../src/watchdogs/event-bus.ts';
import { crashEvent, failFirings, firingJobsBusy } from './firing-faults.ts';

const config = parseConfig({ ...process.env });
const deps = await createDeps(config, { logger: createLogger(config.logLevel) });
const app = buildApp(deps, modules);
await app.startWithoutListening();
await app.warmedUp;
const bus = new WatchdogEventBus({ database: deps.database, clock: deps.clock, logger: deps.logger });
const db = deps.database.db;
let published = 0;

process.stdout.write('ready\n');
for await (const line of createInterface({ input: process.stdin })) {
  const [command, count] = line.trim().split(' ');
  if (command === 'fail') {
    await failFirings(db);
    process.stdout.write('failing\n');
  } else if (command === 'publish') {
    const ids: string[] = [];
    for (let i = 0; i < Number(count); i++) {
      ids.push((await db.transaction((tx) => bus.publish(tx, crashEvent(published++)))).id);
    }
    while ((await firingJobsBusy(db, 500)) > 0) await new Promise((r) => setTimeout(r, 20));
    process.stdout.write(`${JSON.stringify(ids)}\n`);
  }
}
