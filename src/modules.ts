import { alertsModule } from './alerts/alerts.module.ts';
import { apiKeysModule } from './api-keys/api-keys.module.ts';
import type { AppDeps } from './deps.ts';
import { fkDslModule } from './fk-dsl/fk-dsl.module.ts';
import { marketDataModule } from './market-data/market-data.module.ts';
import type { ModuleDefinition } from './platform/module.ts';
import { serverInfoModule } from './server-info/server-info.module.ts';
import { sessionsModule } from './sessions/sessions.module.ts';
import { watchdogsModule } from './watchdogs/watchdogs.module.ts';

/**
 * THE list of domains. Each brings its GraphQL types, tables, error codes, tools, jobs, routes,
 * sockets and start/stop hooks (see ModuleDefinition); the app, the schema and the database are
 * assembled from this list, in this order.
 */
export const modules: readonly ModuleDefinition<AppDeps>[] = [
  apiKeysModule,
  serverInfoModule,
  marketDataModule,
  fkDslModule,
  watchdogsModule,
  alertsModule,
  sessionsModule,
];
