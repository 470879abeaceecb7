import type { Viewer } from '../http/client-identity.ts';

/** What every operation's context has, whatever else the app puts in it. */
export interface BaseContext {
  readonly viewer: Viewer;
}
