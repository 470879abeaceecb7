import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { GraphiQLOptions, Plugin } from 'graphql-yoga';
import { isGraphiqlPage } from './graphql-refusal.ts';

/**
 * GraphiQL at GET /graphql, from the installed `@graphql-yoga/render-graphiql` package: its page
 * inlines every script, style, font and worker (about 9 MB), so it works offline and asks no other
 * host. Yoga's own renderer answers with a bare Content-Type; this plugin answers instead, with the
 * page rendered once, gzip-compressed once, revalidated by ETag and held to a Content-Security-Policy
 * that allows what the page does and no other origin.
 */

/** One example tab: an operation (its name titles the tab) and its variables. */
export interface GraphiqlTab {
  readonly query: string;
  readonly variables?: Readonly<Record<string, unknown>>;
}

export interface GraphiqlSettings {
  readonly title: string;
  /** Open in this order on a browser's first visit (GraphiQL keeps a user's own tabs after that). */
  readonly tabs: readonly GraphiqlTab[];
  /** Sent with every request GraphiQL makes, whatever its user types (the CSRF header). */
  readonly additionalHeaders: Readonly<Record<string, string>>;
}

/**
 * The headers editor's first text: where an API key goes, as comments, so nothing is sent until a
 * user writes a key in (an example key would be refused where keys are optional).
 */
export const HEADERS_HINT = `{
  // Where keys are required (AUTH_REQUIRED=true),
  // send yours with every request:
  // "Authorization": "Bearer <your key>"
}`;

const compress = promisify(gzip);

interface Rendered {
  readonly html: Uint8Array;
  readonly etag: string;
  readonly csp: string;
}

export class GraphiqlPage {
  readonly #settings: GraphiqlSettings;
  #rendered: Promise<Rendered> | undefined;
  #gzipped: Promise<Uint8Array> | undefined;

  constructor(settings: GraphiqlSettings) {
    this.#settings = settings;
  }

  /** What the page is rendered with: Yoga's GraphiQL options. */
  options(): GraphiQLOptions {
    const { title, tabs, additionalHeaders } = this.#settings;
    return {
      title,
      subscriptionsProtocol: 'WS',
      additionalHeaders: { ...additionalHeaders },
      headers: HEADERS_HINT,
      defaultTabs: tabs.map((tab) => ({
        query: tab.query,
        variables: tab.variables ? JSON.stringify(tab.variables, null, 2) : undefined,
        headers: HEADERS_HINT,
      })),
      // A key typed into the headers editor stays in this tab's memory, not in the browser's storage.
      shouldPersistHeaders: false,
    };
  }

  /** The page for one request: 304 when the browser holds it, gzip when the browser takes it. */
  async respond(request: Request): Promise<Response> {
    const page = await this.#render();
    const headers: Record<string, string> = {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-cache',
      etag: page.etag,
      vary: 'accept-encoding',
      'content-security-policy': page.csp,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
    };
    if (request.headers.get('if-none-match') === page.etag)
      return new Response(null, { status: 304, headers });
    const gzipOk = /\bgzip\b/i.test(request.headers.get('accept-encoding') ?? '');
    const body = gzipOk ? await this.#compressed(page) : page.html;
    if (gzipOk) headers['content-encoding'] = 'gzip';
    headers['content-length'] = String(body.byteLength);
    return new Response(body as Uint8Array<ArrayBuffer>, { headers });
  }

  #render(): Promise<Rendered> {
    // The renderer module holds the whole page (9 MB of source): loaded by the first browser only.
    this.#rendered ??= import('@graphql-yoga/render-graphiql').then(({ renderGraphiQL }) => {
      const text = renderGraphiQL(this.options());
      const html = new TextEncoder().encode(text);
      const etag = `"${createHash('sha256').update(html).digest('base64url').slice(0, 22)}"`;
      return { html, etag, csp: contentSecurityPolicy(text) };
    });
    return this.#rendered;
  }

  #compressed(page: Rendered): Promise<Uint8Array> {
    if (!this.#gzipped) {
      const pending = compress(page.html).then((buffer) => new Uint8Array(buffer));
      pending.catch(() => {
        if (this.#gzipped === pending) this.#gzipped = undefined;
      });
      this.#gzipped = pending;
    }
    return this.#gzipped;
  }
}

/**
 * The page's one inline script is allowed by its hash, so an injected script would not run; styles
 * are set inline by the editor at run time. Workers start from blob URLs the script makes; the icon
 * and fonts are data URLs; requests go to this origin only ('self' covers its WebSocket too).
 */
export function contentSecurityPolicy(html: string): string {
  const open = html.indexOf('<script>');
  const close = html.lastIndexOf('</script>');
  if (open < 0 || close < open) throw new Error('the GraphiQL page has no inline script');
  const script = html.slice(open + '<script>'.length, close);
  const hash = createHash('sha256').update(script, 'utf8').digest('base64');
  return [
    "default-src 'none'",
    `script-src 'sha256-${hash}'`,
    "style-src 'unsafe-inline'",
    'img-src data:',
    'font-src data:',
    'worker-src blob:',
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** Answers GraphiQL's page requests at the GraphQL path before any guard reads them as operations. */
export function graphiqlPlugin(page: GraphiqlPage, path: string): Plugin {
  return {
    onRequest({ request, url, endResponse }) {
      if (url.pathname !== path || !isGraphiqlPage(request)) return;
      return page.respond(request).then(endResponse);
    },
  };
}
