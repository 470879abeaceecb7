import { defineModule } from '../platform/module.ts';
import { apiKeyCommands } from './api-key.commands.ts';
import type { ApiKeysDeps } from './api-keys.deps.ts';
import * as apiKeysGraphql from './api-keys.graphql.ts';
import * as apiKeysTables from './api-keys.sql.ts';

/** API keys: issued, listed and revoked by admins, verified on every surface. */
export const apiKeysModule = defineModule<ApiKeysDeps>({
  name: 'api-keys',
  graphql: [apiKeysGraphql],
  tables: [apiKeysTables],
  start: (deps) => deps.apiKeys.start(),
  // The `apikey` command line, on a running server that holds the embedded database.
  operatorCommands: (deps) => apiKeyCommands(deps.apiKeys),
  // On release, the last step before the database closes: revocations are heard while any request
  // or job may still present a key.
  release: (deps) => deps.apiKeys.stop(),
});
