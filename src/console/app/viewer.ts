/** Who the console is signed in as, and what that caller may do (views hide what it may not). */
import { Store } from './store.ts';

export type Scope = 'READ' | 'WRITE' | 'ADMIN';

export interface Viewer {
  readonly id: string;
  readonly name: string;
  readonly kind: 'ANONYMOUS' | 'BOOTSTRAP' | 'KEY';
  readonly scopes: readonly Scope[];
  readonly expiresAt: string | null;
}

/** undefined while unknown; null when the server wants a key and none (or a bad one) was given. */
export const viewer = new Store<Viewer | null | undefined>(undefined);

export const VIEWER_QUERY = '{ viewer { id name kind scopes expiresAt } }';

export function can(who: Viewer | null | undefined, scope: Scope): boolean {
  return !!who && who.scopes.includes(scope);
}
