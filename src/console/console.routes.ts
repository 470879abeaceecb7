import { existsSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { HttpRoutes } from '../platform/http/http-routes.ts';
import { errorBody, json } from '../platform/http/responses.ts';
import { type StaticAsset, staticAsset, staticAssetResponse } from '../platform/http/static-asset.ts';

/**
 * The console's server side: its page at `/` for browsers, and its built files under
 * `/console/assets/`. The browser code (app/) is built by `npm run build` into dist/console with a
 * manifest naming the hashed files; it reaches Vigil only through the public GraphQL API.
 */

export const CONSOLE_ASSETS = '/console/assets/:file';
const ASSET_PREFIX = '/console/assets/';

/** No other origin, no inline script or style element; the page's own code and the API only. */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const TYPES: Readonly<Record<string, string>> = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
  map: 'application/json; charset=utf-8',
};

interface Manifest {
  /** The entry script and style sheet, file names in the assets folder. */
  readonly js: string;
  readonly css: string;
  /** Every file the build wrote (chunks included). */
  readonly files: readonly string[];
}

/** dist/console from the bundle (dist/) and from the sources (src/console). */
function findFolder(): string | undefined {
  const here = dirname(fileURLToPath(import.meta.url));
  return [join(here, 'console'), join(here, '..', '..', 'dist', 'console')].find((dir) =>
    existsSync(join(dir, 'manifest.json')),
  );
}

export class ConsoleAssets {
  readonly #folder = findFolder();
  #manifest: Promise<Manifest | undefined> | undefined;
  #manifestTime = 0;
  readonly #files = new Map<string, Promise<StaticAsset>>();

  /** The manifest, read again when a build rewrote it (a server keeps running across `npm run build`). */
  manifest(): Promise<Manifest | undefined> {
    if (!this.#folder) return Promise.resolve(undefined);
    const path = join(this.#folder, 'manifest.json');
    const mtime = statSync(path, { throwIfNoEntry: false })?.mtimeMs;
    if (mtime === undefined) return Promise.resolve(undefined);
    if (!this.#manifest || mtime !== this.#manifestTime) {
      this.#manifestTime = mtime;
      this.#manifest = readFile(path, 'utf8').then((text) => JSON.parse(text) as Manifest);
    }
    return this.#manifest;
  }

  async get(name: string): Promise<StaticAsset | undefined> {
    const manifest = await this.manifest();
    if (!manifest || !this.#folder || !manifest.files.includes(name)) return undefined;
    let pending = this.#files.get(name);
    if (!pending) {
      const path = join(this.#folder, name);
      const type = TYPES[name.split('.').pop() ?? ''] ?? 'application/octet-stream';
      pending = readFile(path).then((body) => staticAsset(body, type, 9));
      this.#files.set(name, pending);
    }
    return pending;
  }
}

/** Whether a request asks for a page (a browser's navigation) rather than the JSON index. */
export function wantsPage(request: Request): boolean {
  const accept = request.headers.get('accept') ?? '';
  const quality = (type: string): number => {
    for (const part of accept.split(',')) {
      const [name, ...params] = part.trim().split(';');
      if (name?.trim().toLowerCase() !== type) continue;
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      return q ? Number(q.slice(2)) || 0 : 1;
    }
    return -1;
  };
  const html = quality('text/html');
  return html > 0 && html >= quality('application/json');
}

/** The console's page: the shell that loads the built script and style sheet. */
export async function consolePage(assets: ConsoleAssets, version: string): Promise<Response> {
  const manifest = await assets.manifest();
  const headers = {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-cache',
    'content-security-policy': CONSOLE_CSP,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    vary: 'accept',
  };
  if (!manifest) {
    return new Response(
      '<!doctype html><html lang="en"><meta charset="utf-8"><title>Vigil</title>' +
        '<p>The console is not built: run <code>npm run build</code> (npm install does it) and reload.</p>',
      { status: 503, headers },
    );
  }
  const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>Vigil console</title>
<link rel="icon" href="${ASSET_PREFIX}favicon.svg">
<link rel="stylesheet" href="${ASSET_PREFIX}${manifest.css}">
<script type="module" src="${ASSET_PREFIX}${manifest.js}"></script>
</head>
<body data-version="${version.replace(/[^\w.+-]/g, '')}">
<noscript>The Vigil console needs JavaScript. The API is at <a href="/graphql">/graphql</a> and documented at <a href="/docs">/docs</a>.</noscript>
<div id="app"></div>
</body>
</html>
`;
  return new Response(page, { headers });
}

/** The built files, gzipped for clients that take it, cached for a year (their names carry a hash). */
export function registerConsoleAssetRoute(routes: HttpRoutes, assets: ConsoleAssets): void {
  routes.add(
    'GET',
    CONSOLE_ASSETS,
    async (request, { params }) => {
      const file = await assets.get(params.file ?? '');
      if (!file) return json(errorBody('NOT_FOUND', 'no such console asset'), 404);
      return staticAssetResponse(request, file);
    },
    { access: 'public' },
  );
}
