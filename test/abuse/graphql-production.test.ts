import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { parseConfig } from '../../src/config.ts';
import { createTestApp, graphql, type TestApp } from '../support/app.ts';

const INTROSPECTION = '{ __schema { queryType { name } } }';

describe('GraphiQL and introspection settings', () => {
  it('are on by default, and off with NODE_ENV=production unless set', () => {
    expect(parseConfig({}).graphql).toMatchObject({ graphiql: true, introspection: true });
    expect(parseConfig({ NODE_ENV: 'production' }).graphql).toMatchObject({
      graphiql: false,
      introspection: false,
    });
    const opened = parseConfig({
      NODE_ENV: 'production',
      GRAPHQL_GRAPHIQL: 'true',
      GRAPHQL_INTROSPECTION: 'on',
    });
    expect(opened.graphql).toMatchObject({ graphiql: true, introspection: true });
    expect(parseConfig({ GRAPHQL_INTROSPECTION: 'false' }).graphql.introspection).toBe(false);
  });
});

describe('the production profile on every surface', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ listen: true, env: { NODE_ENV: 'production' } });
  });
  afterAll(async () => t?.close());

  it('serves no GraphiQL page', async () => {
    const page = await t.app.fetch('/graphql', { headers: { accept: 'text/html' } });
    expect(await page.text()).not.toMatch(/graphiql/i);
  });

  it('refuses introspection over HTTP, graphql-ws and the operation runner, and keeps __typename', async () => {
    const http = await graphql(t.app, INTROSPECTION);
    expect(http.status).toBe(400);
    expect(http.body.errors?.[0]).toMatchObject({
      message: expect.stringContaining('introspection has been disabled'),
      extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
    });
    expect((await graphql(t.app, '{ __typename }')).body.data).toEqual({ __typename: 'Query' });

    const inProcess = await t.app.runner.run({ document: '{ __type(name: "Query") { name } }' });
    expect(inProcess.errors?.[0]?.message).toContain('introspection has been disabled');

    const client = createClient({ url: `${t.wsUrl}/graphql`, webSocketImpl: WebSocket, retryAttempts: 0 });
    try {
      const errors = await new Promise<unknown>((resolve, reject) => {
        client.subscribe(
          { query: INTROSPECTION },
          {
            next: (result) => resolve(result.errors),
            error: resolve,
            complete: () => reject(new Error('completed without a result')),
          },
        );
      });
      expect(JSON.stringify(errors)).toContain('introspection has been disabled');
    } finally {
      await client.dispose();
    }
  });

  it('does not suggest field names the schema would otherwise hide', async () => {
    const response = await graphql(t.app, '{ serverInf { name } }');
    expect(response.status).toBe(400);
    expect(String(response.body.errors?.[0]?.message)).not.toContain('Did you mean');
  });
});
