import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, bearer, type IssuedKey, issueKey, xApiKey } from './support/access.ts';
import { createTestApp, type TestApp } from './support/app.ts';

// biome-ignore lint/suspicious/noExplicitAny: JSON answers are checked by the expectations, not by types.
type Json = any;

/**
 * FK-DSL tasks belong to the principal that submitted them. Another principal asking for one is
 * told exactly what it would be told for an id that never existed, on every surface (GraphQL, the
 * get-task-status tool over REST and over MCP); the owner and admins see it.
 */
describe('ownership of FK-DSL tasks across principals', () => {
  let t: TestApp;
  const keys = {} as Record<'owner' | 'other' | 'otherReader' | 'admin', IssuedKey>;
  let taskId: string;
  const mcpClients: Client[] = [];

  beforeAll(async () => {
    t = await createTestApp({
      listen: true,
      env: { AUTH_REQUIRED: 'true', ADMIN_API_KEY: ADMIN_KEY, RATE_LIMIT_MAX: '1000' },
    });
    keys.owner = await issueKey(t.app, 'principal A', ['WRITE']);
    keys.other = await issueKey(t.app, 'principal B', ['WRITE']);
    keys.otherReader = await issueKey(t.app, 'principal C', ['READ']);
    keys.admin = await issueKey(t.app, 'an admin', ['ADMIN']);
    const submitted = await graphqlAs(
      keys.owner.secret,
      'mutation { submitFkDsl(query: "EVALUATE AAPL: PRICE") { taskId } }',
    );
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(200);
    taskId = submitted.body.data.submitFkDsl.taskId;
  });
  afterAll(async () => {
    for (const client of mcpClients) await client.close();
    await t?.close();
  });

  async function graphqlAs(key: string, query: string, variables?: Record<string, unknown>) {
    const response = await fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/graphql-response+json',
        ...bearer(key),
      },
      body: JSON.stringify({ query, variables }),
    });
    return { status: response.status, body: (await response.json()) as Json };
  }

  const TASK = 'query Task($id: ID!) { fkDslTask(taskId: $id) { taskId status query } }';

  /** What each surface answers `key` for task `id`, with the id replaced so answers compare. */
  const surfaces: Record<string, (key: string, id: string) => Promise<{ status?: number; answer: Json }>> = {
    'GraphQL fkDslTask': async (key, id) => {
      const { status, body } = await graphqlAs(key, TASK, { id });
      return { status, answer: body };
    },
    'REST /mcp/tools/get-task-status': async (key, id) => {
      const response = await fetch(`${t.url}/mcp/tools/get-task-status`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...xApiKey(key) },
        body: JSON.stringify({ taskId: id }),
      });
      return { status: response.status, answer: await response.json() };
    },
    'REST /mcp/tools/call get-task-status': async (key, id) => {
      const response = await fetch(`${t.url}/mcp/tools/call`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...bearer(key) },
        body: JSON.stringify({ name: 'get-task-status', arguments: { taskId: id } }),
      });
      return { status: response.status, answer: await response.json() };
    },
    'MCP get-task-status': async (key, id) => {
      const client = new Client({ name: 'vigil-ownership-test', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), { requestInit: { headers: bearer(key) } }),
      );
      mcpClients.push(client);
      const result = await client.callTool({ name: 'get-task-status', arguments: { taskId: id } });
      return { answer: result };
    },
  };

  const normalized = (answer: Json, id: string) => JSON.parse(JSON.stringify(answer).replaceAll(id, '<id>'));

  describe.each(Object.keys(surfaces))('%s', (surface) => {
    const ask = (key: string, id: string) => surfaces[surface]!(key, id);

    it('tells another principal NOT_FOUND, exactly as for an id that never existed', async () => {
      const stranger = await ask(keys.other.secret, taskId);
      const missing = randomUUID();
      const nobody = await ask(keys.other.secret, missing);
      expect(JSON.stringify(stranger.answer)).toContain('NOT_FOUND');
      expect(stranger.status).toBe(nobody.status);
      expect(normalized(stranger.answer, taskId)).toEqual(normalized(nobody.answer, missing));
      // Nothing of the task comes back: not its query, status or owner.
      expect(JSON.stringify(stranger.answer)).not.toMatch(/EVALUATE|queued|running|completed|principal A/);
      // A read-only principal is no different, and neither is the owner asking for an unknown id.
      const reader = await ask(keys.otherReader.secret, taskId);
      expect(normalized(reader.answer, taskId)).toEqual(normalized(nobody.answer, missing));
      const ownerMissing = await ask(keys.owner.secret, missing);
      expect(normalized(ownerMissing.answer, missing)).toEqual(normalized(nobody.answer, missing));
    });

    it.each([
      ['its owner', () => keys.owner.secret],
      ['an admin key', () => keys.admin.secret],
      ['ADMIN_API_KEY', () => ADMIN_KEY],
    ])('shows the task to %s', async (_who, key) => {
      const { status, answer } = await ask(key(), taskId);
      if (status !== undefined) expect(status, JSON.stringify(answer)).toBe(200);
      const text = JSON.stringify(answer);
      expect(text).not.toContain('NOT_FOUND');
      expect(text).toContain(taskId);
      expect(text).toContain('EVALUATE AAPL: PRICE');
    });
  });
});
