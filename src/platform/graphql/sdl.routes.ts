import { createHash } from 'node:crypto';
import type { HttpRoutes } from '../http/http-routes.ts';

export const SDL_PATH = '/schema.graphql';

/**
 * `/schema.graphql`: the schema as SDL, the text `npm run schema` writes, for code generators and
 * clients that want the schema without an introspection query. Public like the documentation; it
 * is served only while introspection is, since it tells exactly what introspection would.
 */
export function registerSdlRoute(routes: HttpRoutes, printed: () => string): void {
  let document: { text: string; etag: string } | undefined;
  routes.add(
    'GET',
    SDL_PATH,
    (request) => {
      if (!document) {
        const text = printed();
        const etag = `"${createHash('sha256').update(text).digest('base64url').slice(0, 22)}"`;
        document = { text, etag };
      }
      const headers = {
        'content-type': 'text/plain; charset=utf-8',
        'cache-control': 'no-cache',
        etag: document.etag,
        'x-content-type-options': 'nosniff',
      };
      if (request.headers.get('if-none-match') === document.etag) {
        return new Response(null, { status: 304, headers });
      }
      return new Response(document.text, { headers });
    },
    { access: 'public' },
  );
}
