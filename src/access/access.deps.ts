import { moduleDeps } from '../context.ts';
import type { ApiKeyService } from './api-key.service.ts';

/** What the access module needs from the app (the composition root wires it). */
export interface AccessDeps {
  readonly apiKeys: ApiKeyService;
}

/** The access module's dependencies in its resolvers. */
export const accessDeps = moduleDeps<AccessDeps>();
