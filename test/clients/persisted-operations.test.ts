import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient as createSseClient } from 'graphql-sse';
import { type Client, createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createTestApp, type TestApp } from '../support/app.ts';

/**
 * PERSISTED_OPERATIONS_ONLY: the listed operations run on every surface clients write documents
 * on (HTTP, graphql-ws, graphql-sse), by key; anything else is refused with a code no client
 * answers by registering the document. Tools run server-defined documents and are not affected.
 */

const QUERY = 'query Providers { marketDataProviders { id } }';
const SUBSCRIPTION = 'subscription Time { time(intervalMs: 100) }';
const ARBITRARY = '{ serverInfo { version } }';
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const byHash = (document: string) => ({ persistedQuery: { version: 1, sha256Hash: sha256(document) } });

interface Result {
  data?: Record<string, unknown> | null;
  errors?: Array<{ message: string; extensions?: Record<string, unknown> }>;
}

/** What graphql-ws's and graphql-sse's clients have in common. */
interface Subscribable {
  subscribe(
    payload: { query: string; extensions?: Record<string, unknown> },
    sink: { next(value: unknown): void; error(error: unknown): void; complete(): void },
  ): () => void;
}

/** The first result of one operation (then it is stopped), whatever the transport. */
function firstResult(client: Subscribable, payload: { query: string; extensions?: Record<string, unknown> }) {
  return new Promise<Result>((resolve, reject) => {
    let stop = () => {};
    stop = client.subscribe(payload, {
      next: (value) => {
        resolve(value as Result);
        queueMicrotask(() => stop());
      },
      // graphql-ws reports errors that stop an operation before it runs as an error message.
      error: (error) => (Array.isArray(error) ? resolve({ errors: error }) : reject(error)),
      complete: () => resolve({}),
    });
  });
}

describe('persisted operations only', () => {
  let t: TestApp;
  let dir: string;
  let ws: Client;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vigil-operations-'));
    const file = join(dir, 'operations.json');
    writeFileSync(file, JSON.stringify({ [sha256(QUERY)]: QUERY, [sha256(SUBSCRIPTION)]: SUBSCRIPTION }));
    t = await createTestApp({
      listen: true,
      env: { PERSISTED_OPERATIONS_FILE: file, PERSISTED_OPERATIONS_ONLY: 'true' },
    });
    ws = createClient({ url: `${t.wsUrl}/graphql`, webSocketImpl: WebSocket, retryAttempts: 0 });
  });
  afterAll(async () => {
    await ws?.dispose();
    await t?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const post = async (body: Record<string, unknown>) => {
    const response = await fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Result };
  };

  it('refuses an arbitrary document over HTTP and runs a listed one by its hash', async () => {
    const refused = await post({ query: ARBITRARY });
    expect(refused.status).toBe(403);
    expect(refused.body.errors?.[0]?.extensions?.code).toBe('PERSISTED_OPERATION_REQUIRED');
    expect(refused.body.data).toBeUndefined();

    const unknown = await post({ extensions: byHash(ARBITRARY) });
    expect(unknown.status).toBe(404);
    expect(unknown.body.errors?.[0]).toMatchObject({ extensions: { code: 'PERSISTED_OPERATION_NOT_FOUND' } });
    expect(unknown.body.errors?.[0]?.message).not.toBe('PersistedQueryNotFound');

    const listed = await post({ extensions: byHash(QUERY) });
    expect(listed.status).toBe(200);
    expect(listed.body.data).toEqual({ marketDataProviders: [{ id: 'simulated' }] });

    // GET, as a CDN-cached client would send it (with the header that keeps GET safe from CSRF).
    const url = new URL(`${t.url}/graphql`);
    url.searchParams.set('extensions', JSON.stringify(byHash(QUERY)));
    const viaGet = await fetch(url, { headers: { 'x-graphql-csrf': '1' } });
    expect(viaGet.status).toBe(200);
    expect(await viaGet.json()).toEqual({ data: { marketDataProviders: [{ id: 'simulated' }] } });
  });

  it('refuses an arbitrary document over graphql-ws and runs a listed one by its hash', async () => {
    const refused = await firstResult(ws, { query: ARBITRARY });
    expect(refused.errors?.[0]?.extensions?.code).toBe('PERSISTED_OPERATION_REQUIRED');
    expect(refused.errors?.[0]?.extensions).not.toHaveProperty('http');

    const listed = await firstResult(ws, { query: '', extensions: byHash(SUBSCRIPTION) });
    expect(listed.errors).toBeUndefined();
    expect(Date.parse(String(listed.data?.time))).not.toBeNaN();
  });

  it('refuses an arbitrary document over graphql-sse and runs a listed one by its hash', async () => {
    const sse = createSseClient({ url: `${t.url}/graphql/stream`, retryAttempts: 0 });
    try {
      const refused = await firstResult(sse, { query: ARBITRARY });
      expect(refused.errors?.[0]?.extensions?.code).toBe('PERSISTED_OPERATION_REQUIRED');
      const listed = await firstResult(sse, { query: '', extensions: byHash(QUERY) });
      expect(listed.data).toEqual({ marketDataProviders: [{ id: 'simulated' }] });
    } finally {
      sse.dispose();
    }
  });

  it('leaves tools alone: their documents are the server’s own', async () => {
    const response = await fetch(`${t.url}/mcp/tools/search-by-symbol`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ symbol: 'AAPL', depth: 'quick' }),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ symbol: 'AAPL' });
  });
});
