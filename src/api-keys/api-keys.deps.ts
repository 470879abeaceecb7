import { moduleDeps } from '../context.ts';
import type { ApiKeyService } from './api-key.service.ts';

/** What the API keys module needs from the app (the composition root wires it). */
export interface ApiKeysDeps {
  readonly apiKeys: ApiKeyService;
}

/** The API keys module's dependencies in its resolvers. */
export const apiKeysDeps = moduleDeps<ApiKeysDeps>();
