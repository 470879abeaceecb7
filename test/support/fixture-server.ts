import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadFixture, type RecordedResponse } from './fixtures.ts';

export interface SeenRequest {
  readonly method: string;
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  readonly headers: IncomingMessage['headers'];
}

export interface Reply {
  readonly status?: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string | object;
  /** Delay before answering (for timeout tests). */
  readonly delayMs?: number;
}

export interface FixtureRoute {
  /** Exact path (`/v8/finance/chart/AAPL`) or a pattern. */
  readonly path: string | RegExp;
  /** Query parameters that must be present with these values. */
  readonly query?: Readonly<Record<string, string>>;
  /** A fixture file (`yahoo/....json`), a literal reply, or a function of the request. */
  readonly reply: string | Reply | ((request: SeenRequest, hit: number) => string | Reply);
}

export interface FixtureServer {
  readonly url: string;
  readonly requests: SeenRequest[];
  close(): Promise<void>;
}

/**
 * A local HTTP server standing in for a provider, answering with the recorded real responses.
 * Unmatched requests get 501 with `x-fixture-miss` so a wrong URL fails loudly, never as a 404
 * an adapter could mistake for "unknown symbol".
 */
export async function startFixtureServer(routes: readonly FixtureRoute[]): Promise<FixtureServer> {
  const requests: SeenRequest[] = [];
  const hits = new Map<FixtureRoute, number>();
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fixture');
    const seen: SeenRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: req.headers,
    };
    requests.push(seen);
    const route = routes.find(
      (r) =>
        (typeof r.path === 'string' ? r.path === url.pathname : r.path.test(url.pathname)) &&
        Object.entries(r.query ?? {}).every(([k, v]) => url.searchParams.get(k) === v),
    );
    if (!route) {
      res.writeHead(501, { 'content-type': 'application/json', 'x-fixture-miss': '1' });
      res.end(JSON.stringify({ error: `no fixture for ${url.pathname}${url.search}` }));
      return;
    }
    const hit = (hits.get(route) ?? 0) + 1;
    hits.set(route, hit);
    const spec = typeof route.reply === 'function' ? route.reply(seen, hit) : route.reply;
    const reply = typeof spec === 'string' ? fromRecording(loadFixture(spec)) : spec;
    const send = () => {
      const body = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body ?? '');
      res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
      res.end(body);
    };
    if (reply.delayMs) setTimeout(send, reply.delayMs);
    else send();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function fromRecording(recorded: RecordedResponse): Reply {
  return { status: recorded.status, headers: { ...recorded.headers }, body: recorded.body };
}
