import type { AppDeps } from './deps.ts';
import type { Viewer } from './platform/http/client-identity.ts';

/** Per-operation context: the app's dependencies and the caller's identity, on every surface. */
export interface GraphQLContext {
  readonly deps: AppDeps;
  readonly viewer: Viewer;
}
