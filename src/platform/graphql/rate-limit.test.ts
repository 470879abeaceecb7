import { buildSchema, parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/support/app.ts';
import { limitedRootFields } from './rate-limit.ts';

describe('limitedRootFields', () => {
  const schema = buildSchema(`
    type Query { serverInfo: Info quote(symbol: String!): Info }
    type Mutation { touch: Int }
    type Subscription { time: String }
    type Info { name: String }
  `);
  const doc = parse(`
    query A { serverInfo { name } __typename }
    query B($s: String!) { a: quote(symbol: $s) { name } b: quote(symbol: "X") { name } ...F ...F }
    mutation C { touch ... on Mutation { touch } }
    subscription D { time }
    fragment F on Query { serverInfo { name } __schema { queryType { name } } }
  `);

  it('lists the root fields of the operation that runs, aliases and fragments included, introspection not', () => {
    expect(limitedRootFields(schema, doc, 'A')).toEqual(['serverInfo']);
    expect(limitedRootFields(schema, doc, 'B')).toEqual(['quote', 'quote', 'serverInfo']);
    expect(limitedRootFields(schema, doc, 'C')).toEqual(['touch', 'touch']);
  });

  it('lists nothing for a subscription, an unknown name or an unclear choice', () => {
    expect(limitedRootFields(schema, doc, 'D')).toEqual([]);
    expect(limitedRootFields(schema, doc, 'Z')).toEqual([]);
    expect(limitedRootFields(schema, doc, undefined)).toEqual([]);
  });

  it('works a document out once: the same list for the same document and name', () => {
    const single = parse('{ serverInfo { name } }');
    const first = limitedRootFields(schema, single, undefined);
    expect(first).toEqual(['serverInfo']);
    expect(limitedRootFields(schema, single, undefined)).toBe(first);
    // A single operation is counted whatever name is asked (execution refuses a wrong one).
    expect(limitedRootFields(schema, single, 'Other')).toBe(first);
    expect(limitedRootFields(schema, doc, 'B')).toBe(limitedRootFields(schema, doc, 'B'));
  });
});

describe('rate limits on a listening server', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({
      listen: true,
      env: { RATE_LIMIT_MAX: '3', RATE_LIMIT_WINDOW_SECONDS: '60', TRUST_PROXY_HOPS: '1' },
    });
  });
  afterAll(async () => t?.close());

  const post = async (address: string, body: Record<string, unknown>) => {
    const response = await fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
      body: JSON.stringify(body),
    });
    return { status: response.status, headers: response.headers, body: await response.json() };
  };

  it('charges only the operation that runs, and a fragment once however often it is spread', async () => {
    const address = '198.51.100.31';
    const query = `
      query One { serverInfo { name } }
      query Three { a: serverInfo { name } b: serverInfo { version } }
      query Spread { ...F ...F }
      fragment F on Query { serverInfo { name } }
    `;
    // Running One (three times) spends nothing of the fields of Three or of the fragment.
    expect((await post(address, { query, operationName: 'Spread' })).status).toBe(200);
    expect((await post(address, { query, operationName: 'One' })).status).toBe(200);
    expect((await post(address, { query, operationName: 'One' })).status).toBe(200);
    const limited = await post(address, { query, operationName: 'One' });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toMatch(/^(59|60)$/);
    expect(limited.body.errors[0]).toMatchObject({
      message: expect.stringContaining('Rate limit exceeded for serverInfo: at most 3 calls per 60s'),
      extensions: { code: 'RATE_LIMITED', retryAfterSeconds: Number(limited.headers.get('retry-after')) },
    });
  });

  it('answers GET as POST, and spends nothing on a refused operation', async () => {
    const address = '198.51.100.32';
    const get = async (query: string) =>
      (
        await fetch(`${t.url}/graphql?query=${encodeURIComponent(query)}`, {
          headers: { 'x-graphql-csrf': '1', 'x-forwarded-for': address },
        })
      ).status;
    expect(await get('{ a: serverInfo { name } b: serverInfo { name } }')).toBe(200);
    // Two more would make four: refused whole.
    expect(await get('{ a: serverInfo { name } b: serverInfo { name } }')).toBe(429);
    // Refused before running (a variable the document does not accept): given back.
    const bad = await post(address, {
      query: 'query ($s: String!) { serverInfo { name } quote(symbol: $s) { symbol } }',
      variables: { s: 5 },
    });
    expect(bad.body.data).toBeUndefined();
    expect(await get('{ serverInfo { name } }')).toBe(200);
    expect(await get('{ serverInfo { name } }')).toBe(429);
  });
});
