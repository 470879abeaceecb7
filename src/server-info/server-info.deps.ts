import { moduleDeps } from '../context.ts';
import type { Clock } from '../platform/clock.ts';
import type { Logger } from '../platform/observability/logger.ts';
import type { ServerInfoService } from './server-info.service.ts';

/** What the server-info module needs from the app (the composition root wires these). */
export interface ServerInfoDeps {
  readonly serverInfo: ServerInfoService;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly config: { readonly exposeInstanceDetails: boolean };
}

/** The server-info module's dependencies in its resolvers. */
export const serverInfoDeps = moduleDeps<ServerInfoDeps>();
