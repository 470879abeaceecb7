import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/platform/db/raw.ts';
import { createTestApp, type TestApp } from '../support/app.ts';

// biome-ignore lint/suspicious/noExplicitAny: error bodies are checked by the expectations.
type Json = any;

const MUTATION = 'mutation { submitFkDsl(query: "EVALUATE AAPL: PRICE") { taskId } }';
const QUERY = '{ serverInfo { name } }';

describe('/graphql runs operations only from requests a browser would have preflighted', () => {
  let t: TestApp;
  const allowed = 'https://dashboard.example';

  beforeAll(async () => {
    t = await createTestApp({ env: { ALLOWED_ORIGINS: allowed } });
  });
  afterAll(async () => t?.close());

  const taskCount = async () =>
    (
      await queryRows<{ n: number }>(t.app.deps.database.db, sql`select count(*)::int as n from fk_dsl_tasks`)
    )[0]?.n;

  it('refuses form-encoded, multipart and text/plain POSTs without running them', async () => {
    const before = await taskCount();
    const form = new URLSearchParams({ query: MUTATION });
    const multipart = new FormData();
    multipart.set('operations', JSON.stringify({ query: MUTATION }));
    const attempts: RequestInit[] = [
      { body: form, headers: { 'content-type': 'application/x-www-form-urlencoded' } },
      { body: multipart },
      { body: JSON.stringify({ query: MUTATION }), headers: { 'content-type': 'text/plain' } },
      { body: JSON.stringify({ query: MUTATION }) },
    ];
    for (const init of attempts) {
      const response = await t.app.fetch('/graphql', { method: 'POST', ...init });
      expect(response.status).toBe(415);
      const body: Json = await response.json();
      expect(body.errors[0].extensions.code).toBe('UNSUPPORTED_MEDIA_TYPE');
      expect(body.data).toBeUndefined();
    }
    expect(await taskCount()).toBe(before);
  });

  it('needs a CSRF header (or a non-simple Content-Type) on GET operations', async () => {
    const url = `/graphql?query=${encodeURIComponent(QUERY)}`;
    const bare = await t.app.fetch(url, { headers: { accept: 'application/json' } });
    expect(bare.status).toBe(403);
    const body: Json = await bare.json();
    expect(body.errors[0].extensions.code).toBe('CSRF_HEADER_REQUIRED');
    expect(body.errors[0].message).toContain('x-graphql-csrf');

    for (const headers of <Record<string, string>[]>[
      { 'x-graphql-csrf': '1' },
      { 'apollo-require-preflight': 'true' },
      { 'content-type': 'application/json' },
    ]) {
      const response = await t.app.fetch(url, { headers: { accept: 'application/json', ...headers } });
      expect(response.status, JSON.stringify(headers)).toBe(200);
      expect(((await response.json()) as Json).data.serverInfo.name).toBe('vigil');
    }
  });

  it('streams SSE subscriptions to clients that send the header or POST JSON', async () => {
    const subscription = 'subscription { time(intervalMs: 100) }';
    const firstEvent = async (response: Response) => {
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toContain('text/event-stream');
      const reader = response.body!.getReader();
      let text = '';
      while (!text.includes('"time"')) {
        const { value, done } = await reader.read();
        if (done) break;
        text += new TextDecoder().decode(value);
      }
      await reader.cancel();
      return text;
    };
    const get = `/graphql?query=${encodeURIComponent(subscription)}`;
    expect(
      await firstEvent(
        await t.app.fetch(get, { headers: { accept: 'text/event-stream', 'x-graphql-csrf': '1' } }),
      ),
    ).toContain('"time"');
    const posted = await t.app.fetch('/graphql', {
      method: 'POST',
      headers: { accept: 'text/event-stream', 'content-type': 'application/json' },
      body: JSON.stringify({ query: subscription }),
    });
    expect(await firstEvent(posted)).toContain('"time"');
    // EventSource cannot add headers: a bare GET is refused like any other.
    expect((await t.app.fetch(get, { headers: { accept: 'text/event-stream' } })).status).toBe(403);
  });

  it('serves GraphiQL, which sends the header with every request', async () => {
    const page = await t.app.fetch('/graphql', { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('x-graphql-csrf');
  });

  it('answers CORS only to listed origins, never with credentials', async () => {
    const preflight = (origin: string) =>
      t.app.fetch('/graphql', {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'GET',
          'access-control-request-headers': 'x-graphql-csrf',
        },
      });
    const evil = await preflight('https://evil.example');
    expect(evil.headers.get('access-control-allow-origin')).toBeNull();
    const listed = await preflight(allowed);
    expect(listed.headers.get('access-control-allow-origin')).toBe(allowed);
    expect(listed.headers.get('access-control-allow-credentials')).not.toBe('true');

    const cross = await t.app.fetch('/graphql', {
      method: 'POST',
      headers: { origin: 'https://evil.example', 'content-type': 'application/json', cookie: 'a=b' },
      body: JSON.stringify({ query: QUERY }),
    });
    expect(cross.headers.get('access-control-allow-origin')).toBeNull();
    expect(cross.headers.get('access-control-allow-credentials')).toBeNull();
  });
});
