/** The console's address is its hash (#/markets/BTC%2FUSDT): the server serves one page at /. */
import { Store } from './store.ts';

export interface Route {
  /** The view: overview, markets, alerts, fk-dsl, sessions, access. */
  readonly view: string;
  /** What follows the view in the path, decoded (a symbol, an alert or session id). */
  readonly param: string | undefined;
}

function parse(hash: string): Route {
  const [view, ...rest] = hash.replace(/^#\/?/, '').split('/');
  const param = rest.length > 0 ? decodeURIComponent(rest.join('/')) : undefined;
  return { view: view || 'overview', param: param || undefined };
}

export const route = new Store<Route>(parse(window.location.hash));
window.addEventListener('hashchange', () => route.set(parse(window.location.hash)));

export function href(view: string, param?: string): string {
  return `#/${view}${param === undefined ? '' : `/${encodeURIComponent(param)}`}`;
}

export function go(view: string, param?: string): void {
  window.location.hash = href(view, param);
}
