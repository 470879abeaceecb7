import { defineModule } from '../platform/module.ts';
import * as instancesTables from './instances.sql.ts';
import type { ServerInfoDeps } from './server-info.deps.ts';
import * as serverInfoGraphql from './server-info.graphql.ts';

/** This process and its peers sharing the database: `serverInfo`, the `time` subscription, heartbeats. */
export const serverInfoModule = defineModule<ServerInfoDeps>({
  name: 'server-info',
  graphql: [serverInfoGraphql],
  tables: [instancesTables],
  start: (deps) => deps.serverInfo.register(),
  // Deregistered only after this instance's running jobs finished: until then peers must see it
  // alive, or they would take over (and run twice) the tasks it is still finishing.
  release: async (deps) => {
    await deps.serverInfo.deregister().catch((error: unknown) => {
      deps.logger.warn({ err: error }, 'could not deregister instance');
    });
  },
});
