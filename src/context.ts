import type { Viewer } from './platform/http/client-identity.ts';

/**
 * Per-operation context on every surface: the caller's identity and the app's dependencies. The
 * dependencies are opaque here (an `object`: no field of them can be read off the context), so the
 * builder names no domain and a resolver reaches only what its own module declares, through the
 * accessor its module defines with `moduleDeps` (in the domain's `*.deps.ts`).
 */
export interface GraphQLContext {
  readonly deps: object;
  readonly viewer: Viewer;
}

/**
 * The accessor of one module's slice of the dependencies. `Deps` is the type the module declares
 * (`defineModule<Deps>`), and `src/modules.ts` checks at compile time that the app's dependencies
 * provide it, which is what makes the narrowing below sound.
 */
export function moduleDeps<Deps extends object>(): (ctx: GraphQLContext) => Deps {
  return (ctx) => ctx.deps as Deps;
}
