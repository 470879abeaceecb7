/**
 * Browser origins allowed to call Vigil across origins (ALLOWED_ORIGINS). Every surface that
 * answers CORS (GraphQL, MCP) asks this one list, so a page is allowed everywhere or nowhere.
 */
export function normalizeOrigin(origin: string): string {
  return origin.trim().toLowerCase().replace(/\/+$/, '');
}

export interface OriginList {
  has(origin: string): boolean;
  /** The request's Origin, as sent, when it is listed; undefined otherwise (no CORS). */
  listed(request: Request): string | undefined;
  readonly size: number;
}

export function originList(origins: readonly string[]): OriginList {
  const set = new Set(origins.map(normalizeOrigin).filter(Boolean));
  return {
    size: set.size,
    has: (origin) => set.has(normalizeOrigin(origin)),
    listed(request) {
      const origin = request.headers.get('origin');
      return origin !== null && set.has(normalizeOrigin(origin)) ? origin.trim() : undefined;
    },
  };
}
