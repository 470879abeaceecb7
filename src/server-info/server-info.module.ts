import { defineModule } from '../platform/module.ts';
import type { Logger } from '../platform/observability/logger.ts';
import * as instancesTables from './instances.sql.ts';
import * as serverInfoGraphql from './server-info.graphql.ts';
import type { ServerInfoService } from './server-info.service.ts';

/** This process and its peers sharing the database: `serverInfo`, the `time` subscription, heartbeats. */
export const serverInfoModule = defineModule<{
  readonly serverInfo: ServerInfoService;
  readonly logger: Logger;
}>({
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
