import { defineModule } from '../platform/module.ts';
import type { AccessDeps } from './access.deps.ts';
import * as accessGraphql from './access.graphql.ts';
import { apiKeyCommands } from './api-key.commands.ts';
import * as apiKeysTables from './api-keys.sql.ts';

/** API keys: issued, listed and revoked by admins, verified on every surface. */
export const accessModule = defineModule<AccessDeps>({
  name: 'access',
  graphql: [accessGraphql],
  tables: [apiKeysTables],
  start: (deps) => deps.apiKeys.start(),
  // The `apikey` command line, on a running server that holds the embedded database.
  operatorCommands: (deps) => apiKeyCommands(deps.apiKeys),
  // On release, the last step before the database closes: revocations are heard while any request
  // or job may still present a key.
  release: (deps) => deps.apiKeys.stop(),
});
