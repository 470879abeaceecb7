import { moduleDeps } from '../context.ts';
import type { SessionsDomain } from './sessions.domain.ts';

/** What the sessions module needs from the app (the composition root wires it). */
export interface SessionsDeps {
  readonly sessions: SessionsDomain;
}

/** The sessions module's dependencies in its resolvers. */
export const sessionsDeps = moduleDeps<SessionsDeps>();
