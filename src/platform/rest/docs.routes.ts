import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { HttpRoutes } from '../http/http-routes.ts';
import { errorBody, json } from '../http/responses.ts';
import { type StaticAsset, staticAsset, staticAssetResponse } from '../http/static-asset.ts';
import { type ApiDescription, buildOpenApiDocument } from './openapi.ts';

/**
 * `/openapi.json` and `/docs`: the document, and an interactive viewer (Swagger UI) whose files come
 * from the installed `swagger-ui-dist` package, so the page works offline and calls no other host.
 * The page has no inline script or style, so it runs under a strict Content-Security-Policy.
 */

export const DOCS_PATHS = { openapi: '/openapi.json', docs: '/docs', assets: '/docs/assets/:file' } as const;

const ASSET_PREFIX = '/docs/assets/';
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const JS = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';

/** The only files served from the package: name -> content type. */
const VENDOR_FILES: Readonly<Record<string, string>> = {
  'swagger-ui.css': CSS,
  'swagger-ui-bundle.js': JS,
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
};

/** Starts the viewer on the element that names the document (no inline script needed). */
const INIT_JS = `'use strict';
(function () {
  var root = document.getElementById('swagger-ui');
  window.ui = SwaggerUIBundle({
    url: root.getAttribute('data-spec-url'),
    domNode: root,
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
    defaultModelsExpandDepth: 0,
    docExpansion: 'list',
    tryItOutEnabled: false,
  });
})();
`;

/** Our own file beside the package's: the viewer's start script. */
const OWN_FILES: Readonly<Record<string, { text: string; type: string }>> = {
  'docs.js': { text: INIT_JS, type: JS },
};

// The documentation is public: it is how a caller learns how to present a key.
const PUBLIC = { access: 'public' } as const;

export function registerDocsRoutes(routes: HttpRoutes, api: ApiDescription): void {
  const assets = new DocsAssets();
  registerDocumentRoute(routes, api);
  registerPageRoute(routes, api, (name) => assets.url(name));
  registerAssetRoute(routes, assets);
}

/**
 * The viewer's files: Swagger UI's from the installed package, and ours. Loaded on first use and
 * kept (about 2 MB, 0.5 MB compressed): a browser asks once a year.
 */
class DocsAssets {
  readonly #folder: string;
  readonly #swaggerVersion: string;
  readonly #loaded = new Map<string, Promise<StaticAsset>>();

  constructor() {
    const require = createRequire(import.meta.url);
    const packageJson = require.resolve('swagger-ui-dist/package.json');
    this.#folder = dirname(packageJson);
    this.#swaggerVersion = (require(packageJson) as { version: string }).version;
  }

  /** The file by name, loaded once; undefined for any name that is not one of the viewer's files. */
  get(name: string): Promise<StaticAsset> | undefined {
    if (!Object.hasOwn(VENDOR_FILES, name) && !Object.hasOwn(OWN_FILES, name)) return undefined;
    let pending = this.#loaded.get(name);
    if (!pending) {
      pending = this.#load(name);
      // A failed read is tried again by the next request rather than remembered.
      pending.catch(() => this.#loaded.delete(name));
      this.#loaded.set(name, pending);
    }
    return pending;
  }

  /** The URL changes with the content (package version, or a hash of our own files): cached for a year. */
  url(name: string): string {
    const own = OWN_FILES[name];
    const version = own
      ? createHash('sha256').update(own.text).digest('hex').slice(0, 12)
      : this.#swaggerVersion;
    return `${ASSET_PREFIX}${name}?v=${version}`;
  }

  async #load(name: string): Promise<StaticAsset> {
    const mine = OWN_FILES[name];
    const body = mine
      ? new TextEncoder().encode(mine.text)
      : new Uint8Array(await readFile(join(this.#folder, name)));
    return staticAsset(body, mine?.type ?? VENDOR_FILES[name]!);
  }
}

/** The OpenAPI document, built on first use. */
function registerDocumentRoute(routes: HttpRoutes, api: ApiDescription): void {
  let document: string | undefined;
  routes.add(
    'GET',
    DOCS_PATHS.openapi,
    () => {
      document ??= JSON.stringify(buildOpenApiDocument(api));
      return new Response(document, {
        headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-cache' },
      });
    },
    PUBLIC,
  );
}

/** The viewer's page, rendered on first use, under a strict Content-Security-Policy. */
function registerPageRoute(routes: HttpRoutes, api: ApiDescription, url: (name: string) => string): void {
  let page: string | undefined;
  routes.add(
    'GET',
    DOCS_PATHS.docs,
    () => {
      page ??= renderPage(api, url);
      return new Response(page, {
        headers: {
          'content-type': 'text/html; charset=utf-8',
          'cache-control': 'no-cache',
          'content-security-policy': CSP,
          'x-content-type-options': 'nosniff',
          'referrer-policy': 'no-referrer',
        },
      });
    },
    PUBLIC,
  );
}

/** The viewer's files, gzipped for clients that take it, cached for a year (their URLs are versioned). */
function registerAssetRoute(routes: HttpRoutes, assets: DocsAssets): void {
  routes.add(
    'GET',
    DOCS_PATHS.assets,
    async (request, { params }) => {
      const pending = assets.get(params.file ?? '');
      if (!pending) return json(errorBody('NOT_FOUND', 'no such documentation asset'), 404);
      return staticAssetResponse(request, await pending);
    },
    PUBLIC,
  );
}

/**
 * The page is Swagger UI alone: everything it says (the introduction with access, scopes, tools and
 * WebSocket routes, every operation) comes from the OpenAPI document, whose descriptions Swagger UI
 * renders as Markdown (CommonMark), so nothing here shows Markdown as raw text.
 */
function renderPage(api: ApiDescription, url: (name: string) => string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Vigil API ${esc(api.version)}</title>
<link rel="icon" type="image/png" sizes="32x32" href="${url('favicon-32x32.png')}">
<link rel="icon" type="image/png" sizes="16x16" href="${url('favicon-16x16.png')}">
<link rel="stylesheet" href="${url('swagger-ui.css')}">
</head>
<body>
<main id="swagger-ui" data-spec-url="${DOCS_PATHS.openapi}"></main>
<script src="${url('swagger-ui-bundle.js')}"></script>
<script src="${url('docs.js')}"></script>
</body>
</html>
`;
}

function esc(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );
}
