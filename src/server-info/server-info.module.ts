import type { AppDeps } from '../deps.ts';
import { defineModule } from '../platform/module.ts';
import * as instancesTables from './instances.sql.ts';
import * as serverInfoGraphql from './server-info.graphql.ts';

/** This process and its peers sharing the database: `serverInfo`, the `time` subscription, heartbeats. */
export const serverInfoModule = defineModule<AppDeps>({
  name: 'server-info',
  graphql: [serverInfoGraphql],
  tables: [instancesTables],
  start: (deps) => deps.serverInfo.register(),
  stop: async (deps) => {
    await deps.serverInfo.deregister().catch((error: unknown) => {
      deps.logger.warn({ err: error }, 'could not deregister instance');
    });
  },
});
