import { randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, bearer, type IssuedKey, issueKey } from './support/access.ts';
import { createTestApp, type TestApp } from './support/app.ts';

/**
 * Silences over REST (/api/silences) and MCP (create-silence, list-silences, expire-silence): the
 * same checks, ownership and scopes as the GraphQL operations they run.
 */
type Json = Record<string, unknown>;

describe('silences over REST and MCP', () => {
  let t: TestApp;
  const keys = {} as Record<'owner' | 'other' | 'reader', IssuedKey>;
  const clients: Client[] = [];

  beforeAll(async () => {
    t = await createTestApp({
      listen: true,
      env: {
        AUTH_REQUIRED: 'true',
        ADMIN_API_KEY: ADMIN_KEY,
        RATE_LIMIT_MAX: '1000',
        SECRETS_KEY: randomBytes(32).toString('hex'),
      },
    });
    keys.owner = await issueKey(t.app, 'silences owner', ['WRITE']);
    keys.other = await issueKey(t.app, 'someone else', ['WRITE']);
    keys.reader = await issueKey(t.app, 'reader', ['READ']);
  });
  afterAll(async () => {
    for (const client of clients) await client.close();
    await t?.close();
  });

  async function rest(method: string, path: string, body?: unknown, key = keys.owner.secret) {
    const response = await fetch(`${t.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...bearer(key) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as Json & Json[] };
  }
  async function tool(name: string, args: Json, key = keys.owner.secret) {
    const client = new Client({ name: 'vigil-silences-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), { requestInit: { headers: bearer(key) } }),
    );
    clients.push(client);
    return (await client.callTool({ name, arguments: args })) as Json;
  }
  const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();

  it('creates, lists, expires and deletes a silence over REST, as its owner only', async () => {
    const created = await rest('POST', '/api/silences', {
      matchers: { severities: ['critical'], alert_ids: ['btc-crash'] },
      ends_at: inAnHour(),
      comment: 'deploy window',
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      owner: keys.owner.id,
      matchers: { severities: ['critical'], alert_ids: ['btc-crash'], event_types: [] },
      comment: 'deploy window',
      created_by: 'silences owner',
      state: 'active',
    });
    const id = String(created.body.silence_id);

    const invalid = await rest('POST', '/api/silences', {
      matchers: { severities: ['dire'] },
      ends_at: inAnHour(),
      comment: 'x',
    });
    expect(invalid.status).toBe(422);
    expect(JSON.stringify(invalid.body)).toContain('matchers.severities.0');
    const past = await rest('POST', '/api/silences', { ends_at: '2020-01-01T00:00:00Z', comment: 'x' });
    expect(past.status).toBe(422);
    expect(JSON.stringify(past.body)).toContain('ends_at');

    expect((await rest('GET', '/api/silences', undefined, keys.other.secret)).body).toEqual([]);
    expect((await rest('POST', `/api/silences/${id}/expire`, undefined, keys.other.secret)).status).toBe(404);
    expect(
      (await rest('POST', '/api/silences', { ends_at: inAnHour(), comment: 'x' }, keys.reader.secret)).status,
    ).toBe(403);

    const listed = await rest('GET', '/api/silences');
    expect(listed.body.map((s: Json) => s.silence_id)).toEqual([id]);
    const expired = await rest('POST', `/api/silences/${id}/expire`);
    expect(expired.body).toMatchObject({ silence_id: id, state: 'expired' });
    expect((await rest('GET', '/api/silences')).body).toEqual([]);
    expect((await rest('GET', '/api/silences?include_expired=true')).body).toHaveLength(1);
    expect((await rest('DELETE', `/api/silences/${id}`)).body).toEqual({ status: 'deleted', silence_id: id });
    expect((await rest('DELETE', `/api/silences/${id}`)).status).toBe(404);
  });

  it('creates, lists and expires a silence with the MCP tools', async () => {
    const created = await tool('create-silence', {
      matchers: { assets: ['eth/usdt'], event_types: ['flash_crash'] },
      ends_at: inAnHour(),
      comment: 'maintenance',
    });
    expect(created.isError).toBeFalsy();
    const silence = created.structuredContent as Json;
    expect(silence).toMatchObject({
      matchers: { assets: ['ETH/USDT'], event_types: ['flash_crash'] },
      state: 'active',
    });
    const listed = (await tool('list-silences', {})).structuredContent as { silences: Json[] };
    expect(listed.silences.map((s) => s.silence_id)).toContain(silence.silence_id);
    const expired = await tool('expire-silence', { silence_id: silence.silence_id });
    expect(expired.structuredContent).toMatchObject({ state: 'expired' });
    const refused = await tool('create-silence', { ends_at: inAnHour(), comment: 'x' }, keys.reader.secret);
    expect(refused.isError).toBe(true);
    // Arguments that do not fit the tool's schema are refused as invalid params, naming the field.
    await expect(tool('create-silence', { ends_at: 'tomorrow', comment: 'x' })).rejects.toThrow(/ends_at/);
  });
});
