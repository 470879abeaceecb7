import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN_KEY,
  bearer,
  errorCode,
  errorScope,
  graphqlWs,
  type IssuedKey,
  issueKey,
  revokeKey,
  Socket,
  UNKNOWN_KEY,
  xApiKey,
} from './support/access.ts';
import { createTestApp, type TestApp } from './support/app.ts';

// biome-ignore lint/suspicious/noExplicitAny: JSON answers are checked by the expectations, not by types.
type Json = any;

/**
 * Access control over HTTP as an independent client sees it (real requests to a listening server):
 * every route with no key, an unknown key, a revoked key, a key lacking the scope and a good key.
 * Sockets, MCP, ownership, revocation and limits have their own files (access-*.test.ts).
 */

/** Who calls: the credential presented, and how. */
type Who =
  | 'no key'
  | 'unknown key'
  | 'revoked key'
  | 'read key'
  | 'read key as X-API-Key'
  | 'write key'
  | 'admin key';

interface Expected {
  readonly status: number;
  /** The scope a 403 must name. */
  readonly scope?: string;
}

interface Row {
  readonly surface: string;
  readonly send: (url: string, headers: Record<string, string>, signal: AbortSignal) => Promise<Response>;
  readonly expect: Partial<Record<Who, Expected>>;
  /** What a 200 must hold (beyond its status). */
  readonly check?: (response: Response) => Promise<void>;
}

const JSON_TYPE = { 'content-type': 'application/json' };
const GRAPHQL_ACCEPT = { accept: 'application/graphql-response+json, application/json' };

const postGraphql =
  (query: string, variables?: Record<string, unknown>): Row['send'] =>
  (url, headers, signal) =>
    fetch(`${url}/graphql`, {
      method: 'POST',
      signal,
      headers: { ...JSON_TYPE, ...GRAPHQL_ACCEPT, ...headers },
      body: JSON.stringify({ query, variables }),
    });

const postJson =
  (path: string, body: unknown): Row['send'] =>
  (url, headers, signal) =>
    fetch(`${url}${path}`, {
      method: 'POST',
      signal,
      headers: { ...JSON_TYPE, ...headers },
      body: JSON.stringify(body),
    });

const get =
  (path: string): Row['send'] =>
  (url, headers, signal) =>
    fetch(`${url}${path}`, { signal, headers });

const graphqlData = async (response: Response) => {
  const body: Json = await response.json();
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  expect(body.data).toBeTruthy();
};

const ok: Expected = { status: 200 };
const refused: Expected = { status: 401 };
const REFUSED_CALLERS = { 'no key': refused, 'unknown key': refused, 'revoked key': refused } as const;
const EVERY_CALLER = {
  'no key': ok,
  'unknown key': ok,
  'revoked key': ok,
  'read key': ok,
} as const;

const SEARCH = { symbol: 'AAPL', depth: 'quick' };

const ROWS: readonly Row[] = [
  {
    surface: 'GraphQL POST query',
    send: postGraphql('{ viewer { kind scopes } }'),
    expect: { ...REFUSED_CALLERS, 'read key': ok, 'read key as X-API-Key': ok },
    check: graphqlData,
  },
  {
    surface: 'GraphQL GET query (with the CSRF header)',
    send: (url, headers, signal) =>
      fetch(`${url}/graphql?query=${encodeURIComponent('{ viewer { kind } }')}`, {
        signal,
        headers: { ...GRAPHQL_ACCEPT, 'x-graphql-csrf': '1', ...headers },
      }),
    expect: { ...REFUSED_CALLERS, 'read key': ok, 'read key as X-API-Key': ok },
    check: graphqlData,
  },
  {
    surface: 'GraphQL mutation submitFkDsl',
    send: postGraphql('mutation { submitFkDsl(query: "EVALUATE AAPL: PRICE") { taskId } }'),
    expect: { ...REFUSED_CALLERS, 'read key': { status: 403, scope: 'write' }, 'write key': ok },
    check: graphqlData,
  },
  {
    surface: 'GraphQL admin-only query apiKeys',
    send: postGraphql('{ apiKeys { id prefix } }'),
    expect: {
      'no key': refused,
      'read key': { status: 403, scope: 'admin' },
      'write key': { status: 403, scope: 'admin' },
      'admin key': ok,
    },
    check: graphqlData,
  },
  {
    // Refused whole: the read part does not run and no partial data comes back.
    surface: 'GraphQL query mixing a read field and an admin field',
    send: postGraphql('{ viewer { id } apiKeys { id } }'),
    expect: { 'read key': { status: 403, scope: 'admin' }, 'admin key': ok },
    check: graphqlData,
  },
  {
    surface: 'GraphQL subscription over SSE',
    send: (url, headers, signal) =>
      fetch(`${url}/graphql`, {
        method: 'POST',
        signal,
        headers: { ...JSON_TYPE, accept: 'text/event-stream', ...headers },
        body: JSON.stringify({ query: 'subscription { time(intervalMs: 1000) }' }),
      }),
    expect: { ...REFUSED_CALLERS, 'read key': ok, 'read key as X-API-Key': ok },
    check: async (response) => {
      expect(response.headers.get('content-type')).toContain('text/event-stream');
    },
  },
  {
    surface: 'GET /mcp/tools',
    send: get('/mcp/tools'),
    expect: { ...REFUSED_CALLERS, 'read key': ok, 'read key as X-API-Key': ok },
  },
  {
    surface: 'POST /mcp/tools/search-by-symbol',
    send: postJson('/mcp/tools/search-by-symbol', SEARCH),
    expect: { ...REFUSED_CALLERS, 'read key': ok, 'read key as X-API-Key': ok },
  },
  {
    surface: 'POST /mcp/tools/call (search-by-symbol)',
    send: postJson('/mcp/tools/call', { name: 'search-by-symbol', arguments: SEARCH }),
    expect: { ...REFUSED_CALLERS, 'read key': ok, 'read key as X-API-Key': ok },
  },
  {
    surface: 'POST /mcp/tools/execute-fk-dsl (async: a task is written)',
    send: postJson('/mcp/tools/execute-fk-dsl', { query: 'EVALUATE AAPL: PRICE', async: true }),
    expect: { 'no key': refused, 'read key': { status: 403, scope: 'write' }, 'write key': ok },
  },
  {
    surface: 'GET /ws/connections (a module route)',
    send: get('/ws/connections'),
    expect: { ...REFUSED_CALLERS, 'read key': ok },
  },
  { surface: 'GET /healthz', send: get('/healthz'), expect: EVERY_CALLER },
  { surface: 'GET /readyz', send: get('/readyz'), expect: EVERY_CALLER },
  { surface: 'GET /docs', send: get('/docs'), expect: EVERY_CALLER },
  { surface: 'GET /openapi.json', send: get('/openapi.json'), expect: EVERY_CALLER },
  {
    surface: 'GET /metrics (public unless METRICS_REQUIRE_AUTH)',
    send: get('/metrics'),
    expect: EVERY_CALLER,
  },
];

describe('access control over HTTP, with AUTH_REQUIRED', () => {
  let t: TestApp;
  const keys = {} as Record<'read' | 'write' | 'admin' | 'revoked', IssuedKey>;

  beforeAll(async () => {
    t = await createTestApp({
      listen: true,
      // Many refusals come from one address here; failure limits have their own tests.
      env: { AUTH_REQUIRED: 'true', ADMIN_API_KEY: ADMIN_KEY, AUTH_MAX_FAILURES_PER_MINUTE: '100000' },
    });
    keys.read = await issueKey(t.app, 'reader', ['READ']);
    keys.write = await issueKey(t.app, 'writer', ['WRITE']);
    keys.admin = await issueKey(t.app, 'operator', ['ADMIN']);
    keys.revoked = await issueKey(t.app, 'gone', ['ADMIN']);
    await revokeKey(t.app, keys.revoked.id);
  });
  afterAll(async () => t?.close());

  const headersOf = (who: Who): Record<string, string> => {
    switch (who) {
      case 'no key':
        return {};
      case 'unknown key':
        return bearer(UNKNOWN_KEY);
      case 'revoked key':
        return bearer(keys.revoked.secret);
      case 'read key':
        return bearer(keys.read.secret);
      case 'read key as X-API-Key':
        return xApiKey(keys.read.secret);
      case 'write key':
        return bearer(keys.write.secret);
      case 'admin key':
        return bearer(keys.admin.secret);
    }
  };

  const cases = ROWS.flatMap((row) =>
    (Object.entries(row.expect) as Array<[Who, Expected]>).map(([who, expected]) => ({ row, who, expected })),
  );

  it.each(cases)('$row.surface with $who -> $expected.status', async ({ row, who, expected }) => {
    const abort = new AbortController();
    try {
      const response = await row.send(t.url, headersOf(who), abort.signal);
      expect(response.status).toBe(expected.status);
      if (expected.status === 200) {
        await row.check?.(response);
        return;
      }
      const body: Json = await response.json();
      if (expected.status === 401) {
        expect(response.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
        expect(errorCode(body), JSON.stringify(body)).toBe('UNAUTHENTICATED');
        const message = JSON.stringify(body);
        if (who === 'revoked key') expect(message).toContain('revoked');
        if (who === 'unknown key') expect(message).toContain('not valid');
        expect(message).not.toContain(UNKNOWN_KEY);
      } else {
        expect(errorCode(body), JSON.stringify(body)).toBe('FORBIDDEN');
        expect(errorScope(body)).toBe(expected.scope);
        expect(body.data ?? null).toBeNull();
        expect(JSON.stringify(body)).toContain(`\`${expected.scope}\``);
      }
    } finally {
      abort.abort();
    }
  });

  it('accepts the bootstrap ADMIN_API_KEY as an admin with every scope', async () => {
    const response = await postGraphql('{ viewer { kind id scopes } apiKeys { name } }')(
      t.url,
      xApiKey(ADMIN_KEY),
      new AbortController().signal,
    );
    expect(response.status).toBe(200);
    const body: Json = await response.json();
    expect(body.data.viewer).toEqual({ kind: 'BOOTSTRAP', id: 'admin', scopes: ['READ', 'WRITE', 'ADMIN'] });
    expect(body.data.apiKeys.map((k: Json) => k.name)).toEqual(
      expect.arrayContaining(['reader', 'writer', 'operator', 'gone']),
    );
    expect(JSON.stringify(body)).not.toContain(keys.read.secret);
  });

  it('refuses two different keys in one request, even two good ones', async () => {
    const two = { ...bearer(keys.read.secret), ...xApiKey(keys.write.secret) };
    for (const row of ROWS.filter((r) => r.expect['read key'] && r.expect['no key'] === refused)) {
      const abort = new AbortController();
      const response = await row.send(t.url, two, abort.signal);
      abort.abort();
      expect(response.status, row.surface).toBe(401);
      expect(response.headers.get('www-authenticate'), row.surface).toMatch(/^Bearer\b/);
    }
    // The same key in both places is one key.
    const same = { ...bearer(keys.read.secret), ...xApiKey(keys.read.secret) };
    const response = await postGraphql('{ viewer { id } }')(t.url, same, new AbortController().signal);
    expect(response.status).toBe(200);
    expect(((await response.json()) as Json).data.viewer.id).toBe(keys.read.id);
  });

  it('refuses an Authorization header of another scheme rather than reading it as no key', async () => {
    const response = await get('/mcp/tools')(
      t.url,
      { authorization: `Basic ${btoa('u:p')}` },
      new AbortController().signal,
    );
    expect(response.status).toBe(401);
    expect(errorCode(await response.json())).toBe('UNAUTHENTICATED');
  });

  it('refuses a key once it expires, and closes what it holds open', async () => {
    const expiresAt = new Date(Date.now() + 1_500);
    const brief = await issueKey(t.app, 'brief', ['READ'], { expiresAt });
    const viewer = () =>
      postGraphql('{ viewer { id expiresAt } }')(t.url, bearer(brief.secret), new AbortController().signal);
    const before = await viewer();
    expect(before.status).toBe(200);
    expect(((await before.json()) as Json).data.viewer).toEqual({
      id: brief.id,
      expiresAt: expiresAt.toISOString(),
    });
    const wsUrl = t.url.replace(/^http/, 'ws');
    const socket = new Socket(`${wsUrl}/ws/prices/AAPL`, bearer(brief.secret));
    expect(await socket.opened).toBe(true);
    const gql = graphqlWs(`${wsUrl}/graphql`, { connectionParams: { apiKey: brief.secret } });
    const ticking = gql.client.subscribe(
      { query: 'subscription { time(intervalMs: 200) }' },
      { next: () => {}, error: () => {}, complete: () => {} },
    );
    try {
      const [closed, gqlClosed] = await Promise.all([socket.closed, gql.closed]);
      expect(closed.code).toBe(4401);
      expect(gqlClosed.code).toBe(4401);
      expect(gqlClosed.reason).toMatch(/expired/);
      expect(Date.now()).toBeGreaterThanOrEqual(expiresAt.getTime() - 50);
    } finally {
      ticking();
      await gql.client.dispose();
    }
    const after = await viewer();
    expect(after.status).toBe(401);
    expect(JSON.stringify(await after.json())).toContain('expired');
  });

  it('refuses to create a key that has already expired', async () => {
    await expect(
      issueKey(t.app, 'stale', ['READ'], { expiresAt: new Date(Date.now() - 1_000) }),
    ).rejects.toThrow(/expiresAt/);
  });
});

describe('METRICS_REQUIRE_AUTH', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({
      listen: true,
      env: { AUTH_REQUIRED: 'true', ADMIN_API_KEY: ADMIN_KEY, METRICS_REQUIRE_AUTH: 'true' },
    });
  });
  afterAll(async () => t?.close());

  it('puts /metrics behind a key; health and docs stay public', async () => {
    const without = await fetch(`${t.url}/metrics`);
    expect(without.status).toBe(401);
    expect(without.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
    const reader = await issueKey(t.app, 'scraper', ['READ']);
    const scraped = await fetch(`${t.url}/metrics`, { headers: bearer(reader.secret) });
    expect(scraped.status).toBe(200);
    expect(await scraped.text()).toContain('# TYPE');
    for (const path of ['/healthz', '/readyz', '/docs', '/openapi.json']) {
      expect((await fetch(`${t.url}${path}`)).status, path).toBe(200);
    }
  });
});
