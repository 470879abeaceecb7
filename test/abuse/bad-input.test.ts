import { request as httpRequest } from 'node:http';
import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { createLogger } from '../../src/platform/observability/logger.ts';
import { createTestApp, graphql, type TestApp } from '../support/app.ts';

// biome-ignore lint/suspicious/noExplicitAny: error bodies are checked by the expectations.
type Json = any;

const NUL = '\u0000';
const SUBMIT = 'mutation ($q: String!) { submitFkDsl(query: $q) { taskId } }';
const nested = (depth: number) => `${'['.repeat(depth)}"x"${']'.repeat(depth)}`;

describe('bad input gets a short 4xx answer, on every surface', () => {
  let t: TestApp;
  const logger = createLogger('silent');
  const logged = vi.spyOn(logger, 'error');

  beforeAll(async () => {
    t = await createTestApp({
      listen: true,
      overrides: { logger },
      // Room for a 50,000-deep literal, so the document checks (not the body cap) answer it.
      env: { GRAPHQL_MAX_BODY_BYTES: '1000000' },
    });
  });
  afterAll(async () => t?.close());

  const post = (body: string) =>
    t.app.fetch('/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body });

  /** The errors of the first result of one operation over graphql-ws. */
  async function overWs(query: string, variables?: Record<string, unknown>): Promise<Json> {
    const client = createClient({ url: `${t.wsUrl}/graphql`, webSocketImpl: WebSocket, retryAttempts: 0 });
    try {
      return await new Promise((resolve, reject) => {
        client.subscribe(
          { query, ...(variables ? { variables } : {}) },
          {
            next: (result) => resolve(result.errors),
            error: (error) => resolve(error),
            complete: () => reject(new Error('completed without a result')),
          },
        );
      });
    } finally {
      await client.dispose();
    }
  }

  it('does not echo a malformed JSON body', async () => {
    const junk = `{"query": "${'x'.repeat(500_000)}`;
    const response = await post(junk);
    expect(response.status).toBe(400);
    const text = await response.text();
    expect(text.length).toBeLessThan(1_000);
    expect(text).not.toContain('x'.repeat(50));
    expect(JSON.parse(text).errors[0].extensions.code).toBe('BAD_USER_INPUT');
  });

  it('never returns an error message longer than a few hundred characters', async () => {
    const long = 'y'.repeat(100_000);
    const response = await graphql(t.app, 'query ($b: Boolean!) { __typename @include(if: $b) }', {
      b: long,
    });
    const message = String(response.body.errors?.[0]?.message);
    expect(message).toContain('$b');
    expect(message.length).toBeLessThanOrEqual(500);
  });

  it('refuses a NUL character in a string, as a literal or a variable, with 400 BAD_USER_INPUT', async () => {
    const query = `EVALUATE "AAPL${NUL}": PRICE`;
    const literal = await graphql(
      t.app,
      `mutation { submitFkDsl(query: ${JSON.stringify(query)}) { taskId } }`,
    );
    expect(literal.status).toBe(400);
    expect(literal.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'query' });

    const variable = await graphql(t.app, SUBMIT, { q: query });
    expect(variable.status).toBe(400);
    expect(variable.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: '$q' });

    const rest = await t.app.fetch('/mcp/tools/execute-fk-dsl', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query, async: true }),
    });
    expect(rest.status).toBe(400);
    expect(((await rest.json()) as Json).error.code).toBe('BAD_USER_INPUT');

    expect(await overWs(SUBMIT, { q: query })).toMatchObject([{ extensions: { code: 'BAD_USER_INPUT' } }]);
    expect(logged).not.toHaveBeenCalled();
  });

  it('answers a 50,000-deep list literal with a 4xx, and over graphql-ws with an ordinary error', async () => {
    const query = `{ quote(symbol: ${nested(50_000)}) { symbol } }`;
    const response = await graphql(t.app, query);
    expect(response.status).toBe(400);
    expect(response.body.errors?.[0]?.extensions).toMatchObject({ code: 'GRAPHQL_LIMIT_EXCEEDED' });
    // A client that accepts plain JSON (no graphql-response+json) gets a 4xx too.
    const plain = await post(JSON.stringify({ query }));
    expect(plain.status).toBe(400);
    expect(plain.headers.get('content-type')).toContain('application/json');

    const errors = await overWs(query);
    expect(errors).toMatchObject([{ extensions: { code: 'GRAPHQL_LIMIT_EXCEEDED', limit: 'depth' } }]);
    expect(JSON.stringify(errors)).not.toMatch(/call stack/i);
    expect(logged).not.toHaveBeenCalled();
  });

  it('answers 50,000-deep variables with a 4xx on every surface', async () => {
    const query = 'query ($v: String!) { quote(symbol: $v) { symbol } }';
    // Written out by hand: JSON.stringify itself cannot nest this deep.
    const payload = `{"query": ${JSON.stringify(query)}, "variables": {"v": ${nested(50_000)}}}`;
    const response = await post(payload);
    expect(response.status).toBe(400);
    expect(((await response.json()) as Json).errors[0].extensions).toMatchObject({
      code: 'GRAPHQL_LIMIT_EXCEEDED',
      limit: 'depth',
    });

    const socket = new WebSocket(`${t.wsUrl}/graphql`, 'graphql-transport-ws');
    const messages: Json[] = [];
    const answered = new Promise<Json>((resolve, reject) => {
      socket.on('message', (data) => {
        const message = JSON.parse(String(data));
        messages.push(message);
        if (message.type === 'connection_ack')
          socket.send(`{"id": "1", "type": "subscribe", "payload": ${payload}}`);
        if (message.type === 'error' || message.type === 'next') resolve(message);
      });
      socket.on('close', (code) => reject(new Error(`closed with ${code}`)));
    });
    socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init' })));
    try {
      const message = await answered;
      const errors = message.type === 'error' ? message.payload : message.payload.errors;
      expect(errors).toMatchObject([{ extensions: { code: 'GRAPHQL_LIMIT_EXCEEDED', limit: 'depth' } }]);
    } finally {
      socket.close();
    }
    expect(logged).not.toHaveBeenCalled();
  });

  it('counts a request whose client went away as 499, and does not log it as an error', async () => {
    const { port } = new URL(t.url);
    const abandon = (path: string) =>
      new Promise<void>((resolve) => {
        const req = httpRequest({
          host: '127.0.0.1',
          port,
          path,
          method: 'POST',
          headers: { 'content-type': 'application/json', 'content-length': '2000' },
        });
        req.on('error', () => resolve());
        req.on('close', () => resolve());
        // Part of the body, then the client is gone.
        req.write('{"query": "', () => req.destroy());
      });
    await abandon('/graphql');
    await abandon('/mcp/tools/call');

    const counted = (text: string, route: string, status: number) =>
      text.includes(`vigil_http_requests_total{method="POST",route="${route}",status="${status}"}`);
    let metrics = '';
    for (let attempt = 0; attempt < 100; attempt++) {
      metrics = await (await fetch(`${t.url}/metrics`)).text();
      if (counted(metrics, '/graphql', 499) && counted(metrics, '/mcp/tools/call', 499)) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(counted(metrics, '/graphql', 499)).toBe(true);
    expect(counted(metrics, '/mcp/tools/call', 499)).toBe(true);
    expect(metrics).not.toMatch(/vigil_http_requests_total\{[^}]*status="500"/);
    expect(logged).not.toHaveBeenCalled();
  });
});
