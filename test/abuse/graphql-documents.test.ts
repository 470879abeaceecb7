import { getIntrospectionQuery } from 'graphql';
import { type Client, createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createTestApp, graphql, type TestApp } from '../support/app.ts';

// biome-ignore lint/suspicious/noExplicitAny: error bodies are checked by the expectations.
type Json = any;

/** Each test is its own client (an address behind one trusted proxy), with its own budget. */
const from = (address: string) => ({ 'x-forwarded-for': address });

const aliases = (n: number, field = '__typename') =>
  `{ ${Array.from({ length: n }, (_, i) => `a${i}: ${field}`).join(' ')} }`;

/** A pure introspection document whose fragments triple at each level: few tokens, huge cost. */
function fragmentFanOut(levels: number): string {
  const fragments = [`fragment F0 on __Type { name kind }`];
  for (let i = 1; i <= levels; i++) {
    fragments.push(
      `fragment F${i} on __Type { fields { type { ...F${i - 1} } } interfaces { ...F${i - 1} } possibleTypes { ...F${i - 1} } }`,
    );
  }
  return `{ __schema { types { ...F${levels} } } } ${fragments.join(' ')}`;
}

function expectLimit(body: Json, limit: string, max: number): void {
  const error = body.errors?.[0];
  expect(error?.extensions).toMatchObject({ code: 'GRAPHQL_LIMIT_EXCEEDED', limit, max });
  expect(error.message).toContain(`(${limit})`);
  expect(error.message.length).toBeLessThan(200);
}

describe('GraphQL documents are held to limits on tokens, aliases, depth and cost', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({
      listen: true,
      env: {
        // A body far over every document limit still fits, so the limits themselves are tested.
        GRAPHQL_MAX_BODY_BYTES: '8000000',
        RATE_LIMIT_MAX: '5',
        RATE_LIMIT_WINDOW_SECONDS: '60',
        TRUST_PROXY: 'true',
        TRUST_PROXY_HOPS: '1',
      },
    });
  });
  afterAll(async () => t?.close());

  it('refuses a 100,000-alias document by its token count, naming the limit', async () => {
    const response = await graphql(t.app, aliases(100_000), undefined, from('10.0.0.1'));
    expect(response.status).toBe(400);
    expectLimit(response.body, 'tokens', 2_000);
  });

  it('counts aliases, introspection fields included', async () => {
    expect((await graphql(t.app, aliases(30), undefined, from('10.0.0.2'))).status).toBe(200);
    const response = await graphql<Json>(t.app, aliases(31), undefined, from('10.0.0.2'));
    expect(response.status).toBe(400);
    expectLimit(response.body, 'aliases', 30);
    expect(response.body.errors?.[0]?.extensions).toMatchObject({ found: 31 });
  });

  it('refuses deep nesting, of fields (through fragments too) and of values', async () => {
    const ofType = (n: number) => `${'ofType { '.repeat(n)}name${' }'.repeat(n)}`;
    const deep = await graphql(
      t.app,
      `{ __schema { types { ${ofType(25)} } } }`,
      undefined,
      from('10.0.0.3'),
    );
    expect(deep.status).toBe(400);
    expectLimit(deep.body, 'depth', 20);

    const chain = Array.from(
      { length: 25 },
      (_, i) => `fragment D${i} on __Type { ofType { ...D${i + 1} } }`,
    );
    chain.push('fragment D25 on __Type { name }');
    const viaFragments = await graphql(
      t.app,
      `{ __schema { types { ...D0 } } } ${chain.join(' ')}`,
      undefined,
      from('10.0.0.3'),
    );
    expect(viaFragments.status).toBe(400);
    expectLimit(viaFragments.body, 'depth', 20);

    const list = (n: number) => `${'['.repeat(n)}"x"${']'.repeat(n)}`;
    const value = await graphql(
      t.app,
      `{ quote(symbol: ${list(30)}) { symbol } }`,
      undefined,
      from('10.0.0.3'),
    );
    expect(value.status).toBe(400);
    expectLimit(value.body, 'depth', 20);
  });

  it('prices every field where its fragment is spread, introspection included', async () => {
    const response = await graphql<Json>(t.app, fragmentFanOut(8), undefined, from('10.0.0.4'));
    expect(response.status).toBe(400);
    expectLimit(response.body, 'cost', 1_000);
    expect((response.body as Json).errors[0].extensions.found).toBeGreaterThan(1_000);
  });

  it("lets GraphiQL's introspection query through", async () => {
    const query = getIntrospectionQuery({
      descriptions: true,
      specifiedByUrl: true,
      directiveIsRepeatable: true,
      schemaDescription: true,
      inputValueDeprecation: true,
      oneOf: true,
    });
    const response = await graphql<Json>(t.app, query, undefined, from('10.0.0.5'));
    expect(response.status).toBe(200);
    expect(response.body.errors).toBeUndefined();
    expect(response.body.data.__schema.types.length).toBeGreaterThan(10);
  });

  it("spends none of the client's budget on a refused document", async () => {
    const client = from('10.0.0.6');
    const field = 'serverInfo { name }';
    // Refused at parse and validation: over the alias, depth and token limits.
    expect((await graphql(t.app, aliases(301, field), undefined, client)).status).toBe(400);
    expect((await graphql(t.app, aliases(31, field), undefined, client)).status).toBe(400);
    // Refused before running: a variable the document does not accept.
    const coerced = 'query ($s: String!) { serverInfo { name } quote(symbol: $s) { symbol } }';
    const bad = await graphql<Json>(t.app, coerced, { s: 5 }, client);
    expect(bad.body.data).toBeUndefined();
    expect(bad.body.errors?.[0]?.message).toMatch(/\$s/);
    for (let i = 0; i < 5; i++)
      expect((await graphql(t.app, `{ ${field} }`, undefined, client)).status).toBe(200);
    expect((await graphql(t.app, `{ ${field} }`, undefined, client)).status).toBe(429);
  });

  it('gives back what the other fields of a rate-limited operation counted', async () => {
    const client = from('10.0.0.7');
    const field = 'serverInfo { name }';
    for (let i = 0; i < 3; i++)
      expect((await graphql(t.app, `{ ${field} }`, undefined, client)).status).toBe(200);
    // Three more would make six: refused as a whole, and none of the three is kept.
    expect((await graphql(t.app, aliases(3, field), undefined, client)).status).toBe(429);
    expect((await graphql(t.app, aliases(2, field), undefined, client)).status).toBe(200);
  });

  it('holds every surface to the same limits: graphql-ws and the operation runner', async () => {
    const ws = createClient({
      url: `${t.wsUrl}/graphql`,
      webSocketImpl: WebSocket,
      retryAttempts: 0,
      lazy: true,
    });
    try {
      const overWs = await first(ws, aliases(31));
      expect(overWs).toMatchObject([{ extensions: { code: 'GRAPHQL_LIMIT_EXCEEDED', limit: 'aliases' } }]);
      const tokens = await first(ws, aliases(5_000));
      expect(tokens).toMatchObject([{ extensions: { code: 'GRAPHQL_LIMIT_EXCEEDED', limit: 'tokens' } }]);
    } finally {
      await ws.dispose();
    }
    const inProcess = await t.app.runner.run({ document: fragmentFanOut(8) });
    expect(inProcess.errors?.[0]?.extensions).toMatchObject({
      code: 'GRAPHQL_LIMIT_EXCEEDED',
      limit: 'cost',
    });
  });
});

describe('the /graphql body cap', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ env: { GRAPHQL_MAX_BODY_BYTES: '2048' } });
  });
  afterAll(async () => t?.close());

  const body = (size: number) => JSON.stringify({ query: `{ __typename }${' '.repeat(size)}` });

  it('refuses a body declared over the cap before reading it', async () => {
    const response = await t.app.fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: body(4_000),
    });
    expect(response.status).toBe(413);
    const json: Json = await response.json();
    expect(json.errors[0]).toMatchObject({ extensions: { code: 'PAYLOAD_TOO_LARGE', limitBytes: 2048 } });
  });

  it('stops reading a streamed body (no Content-Length) at the cap', async () => {
    const bytes = new TextEncoder().encode(body(4_000));
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < bytes.length; i += 512) controller.enqueue(bytes.slice(i, i + 512));
        controller.close();
      },
    });
    const response = await t.app.fetch(
      new Request('http://localhost/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: stream,
        duplex: 'half',
      } as RequestInit),
    );
    expect(response.status).toBe(413);
    expect(((await response.json()) as Json).errors[0].extensions.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('reads a body under the cap', async () => {
    expect((await graphql(t.app, '{ __typename }')).status).toBe(200);
  });
});

/** The errors of the first result of one operation over graphql-ws. */
function first(client: Client, query: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const stop = client.subscribe(
      { query },
      {
        next: (result) => {
          stop();
          resolve(result.errors);
        },
        error: (error) => resolve(error),
        complete: () => reject(new Error('completed without a result')),
      },
    );
  });
}
