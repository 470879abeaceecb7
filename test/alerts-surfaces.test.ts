/**
 * The alerts' surfaces over real HTTP: the /api/alerts routes, GraphQL and the MCP tools, as two
 * principals. Secrets go in and never come out (the raw answer text is searched for them), each
 * error keeps its code and status, and one principal's alerts are NOT_FOUND to another.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, bearer, type IssuedKey, issueKey } from './support/access.ts';
import { createTestApp, type TestApp } from './support/app.ts';

// biome-ignore lint/suspicious/noExplicitAny: JSON answers are checked by the expectations, not by types.
type Json = any;

const PASSWORD = 'smtp-pass-7f3a9c';
const BOT_TOKEN = 'bot-token-51e0aa';
const AUTH_TOKEN = 'bearer-tok-c0ffee';
const SIGNING = 'signing-secret-d00d';
const SECRETS = [PASSWORD, BOT_TOKEN, AUTH_TOKEN, SIGNING];

const ALERT_FIELDS =
  'alertId name enabled cooldownSeconds deliveryMethods trigger { type eventFilter { severities eventTypes } } ' +
  'emailConfig { smtpPort useTls toEmails hasPassword } chatConfig { chatIds hasBotToken } ' +
  'webhookConfig { url method headers { name value } hasAuthToken hasSigningSecret }';

describe('alerts over REST, GraphQL and MCP', () => {
  let t: TestApp;
  let hook: Server;
  let hookUrl: string;
  const hits: Array<{ headers: Record<string, unknown>; body: string }> = [];
  const keys = {} as Record<'owner' | 'other', IssuedKey>;
  const answers: string[] = [];
  const mcpClients: Client[] = [];

  beforeAll(async () => {
    hook = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => {
        body += c;
      });
      req.on('end', () => {
        hits.push({ headers: req.headers, body });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
    hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;
    t = await createTestApp({
      listen: true,
      env: {
        AUTH_REQUIRED: 'true',
        ADMIN_API_KEY: ADMIN_KEY,
        RATE_LIMIT_MAX: '1000',
        SECRETS_KEY: randomBytes(32).toString('hex'),
        ALERT_DELIVERY_ALLOWED_HOSTS: '127.0.0.1',
      },
    });
    keys.owner = await issueKey(t.app, 'alerts owner', ['WRITE']);
    keys.other = await issueKey(t.app, 'someone else', ['WRITE']);
  });
  afterAll(async () => {
    // Every answer of the suite, searched once more: no secret was ever returned.
    const all = answers.join('\n');
    for (const secret of SECRETS) expect(all).not.toContain(secret);
    for (const client of mcpClients) await client.close();
    await t?.close();
    hook?.closeAllConnections();
    await new Promise((resolve) => hook?.close(resolve));
  });

  async function rest(method: string, path: string, body?: unknown, key = keys.owner.secret) {
    const response = await fetch(`${t.url}${path}`, {
      method,
      headers: { ...bearer(key), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    answers.push(text);
    return { status: response.status, text, body: JSON.parse(text) as Json };
  }

  async function gql(query: string, variables?: Record<string, unknown>, key = keys.owner.secret) {
    const response = await fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/graphql-response+json',
        ...bearer(key),
      },
      body: JSON.stringify({ query, variables }),
    });
    const text = await response.text();
    answers.push(text);
    return { status: response.status, text, body: JSON.parse(text) as Json };
  }

  async function mcp(key = keys.owner.secret): Promise<Client> {
    const client = new Client({ name: 'vigil-alerts-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), { requestInit: { headers: bearer(key) } }),
    );
    mcpClients.push(client);
    return client;
  }

  async function tool(client: Client, name: string, args: Record<string, unknown>) {
    const result = (await client.callTool({ name, arguments: args })) as Json;
    const text = JSON.stringify(result);
    answers.push(text);
    return { result, text };
  }

  const emailAlert = (id: string, extra: Record<string, unknown> = {}) => ({
    alert_id: id,
    name: `Alert ${id}`,
    trigger: { type: 'watchdog_event', event_filter: { severities: ['high', 'critical'] } },
    delivery_methods: ['email'],
    email_config: { smtp_host: 'mail.example.com', smtp_password: PASSWORD, to_emails: ['ops@example.com'] },
    ...extra,
  });

  it('creates an alert with the defaults and answers 201 without the secret', async () => {
    const created = await rest('POST', '/api/alerts', emailAlert('rest-1'));
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({
      alert_id: 'rest-1',
      enabled: true,
      cooldown_seconds: 60,
      description: '',
      delivery_methods: ['email'],
      trigger: {
        type: 'watchdog_event',
        event_filter: { severities: ['high', 'critical'], event_types: [] },
      },
      email_config: { smtp_host: 'mail.example.com', use_tls: true, has_password: true, smtp_port: null },
      trigger_count: 0,
      last_triggered: null,
    });
    expect(created.text).not.toContain(PASSWORD);
    expect(created.text).not.toMatch(/smtp_password/);
  });

  it('shows has_password on GET and in the list, never the password', async () => {
    const got = await rest('GET', '/api/alerts/rest-1');
    expect(got.status).toBe(200);
    expect(got.body.email_config.has_password).toBe(true);
    const listed = await rest('GET', '/api/alerts');
    expect(listed.body.map((a: Json) => a.alert_id)).toContain('rest-1');
    for (const text of [got.text, listed.text]) expect(text).not.toContain(PASSWORD);
  });

  it('refuses a duplicate id with 400 naming alert_id', async () => {
    const again = await rest('POST', '/api/alerts', emailAlert('rest-1'));
    expect(again.status).toBe(400);
    expect(again.body.error).toMatchObject({ code: 'BAD_USER_INPUT', details: { field: 'alert_id' } });
  });

  it('refuses an invalid body with 422 naming every bad field in snake_case', async () => {
    const bad = await rest('POST', '/api/alerts', {
      ...emailAlert('rest-bad'),
      cooldown_seconds: -1,
      email_config: { to_emails: ['not-an-address'] },
      delivery_methods: ['email', 'chat'],
    });
    expect(bad.status, bad.text).toBe(422);
    expect(bad.body.error.code).toBe('INVALID_ARGUMENTS');
    const fields = bad.body.error.details.issues.map((i: Json) => i.field);
    expect(fields).toEqual(
      expect.arrayContaining(['cooldown_seconds', 'email_config.to_emails.0', 'chat_config']),
    );
    expect((await rest('GET', '/api/alerts/rest-bad')).status).toBe(404);
  });

  it('refuses a body that is not a JSON object', async () => {
    const response = await fetch(`${t.url}/api/alerts`, {
      method: 'POST',
      headers: { ...bearer(keys.owner.secret), 'content-type': 'application/json' },
      body: '[1,2]',
    });
    expect(response.status).toBe(400);
  });

  it('replaces with PUT: an id that differs from the path is 400, a missing one is the path’s, secrets are kept', async () => {
    const mismatch = await rest('PUT', '/api/alerts/rest-1', emailAlert('other-id'));
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.error.details.field).toBe('alert_id');

    const { alert_id: _id, ...withoutId } = emailAlert('x', { name: 'Renamed', cooldown_seconds: 300 });
    const email = { smtp_host: 'mail.example.com', to_emails: ['ops@example.com'] };
    const replaced = await rest('PUT', '/api/alerts/rest-1', { ...withoutId, email_config: email });
    expect(replaced.status, replaced.text).toBe(200);
    expect(replaced.body).toMatchObject({ alert_id: 'rest-1', name: 'Renamed', cooldown_seconds: 300 });
    expect(replaced.body.email_config.has_password).toBe(true);

    const cleared = await rest('PUT', '/api/alerts/rest-1', {
      ...withoutId,
      email_config: { ...email, smtp_password: null },
    });
    expect(cleared.body.email_config.has_password).toBe(false);
    const restored = await rest('PUT', '/api/alerts/rest-1', emailAlert('rest-1'));
    expect(restored.body.email_config.has_password).toBe(true);
  });

  it('answers 404 for unknown alerts on every route', async () => {
    for (const [method, path, body] of [
      ['GET', '/api/alerts/nope'],
      ['PUT', '/api/alerts/nope', emailAlert('nope')],
      ['DELETE', '/api/alerts/nope'],
      ['POST', '/api/alerts/nope/enable'],
      ['POST', '/api/alerts/nope/disable'],
      ['POST', '/api/alerts/nope/test'],
      ['GET', '/api/alerts/nope/deliveries'],
    ] as const) {
      const answer = await rest(method, path, body);
      expect(answer.status, `${method} ${path}`).toBe(404);
      expect(answer.body.error.code).toBe('NOT_FOUND');
    }
  });

  it('disables and enables, and lists enabled ones only when asked', async () => {
    expect((await rest('POST', '/api/alerts', emailAlert('rest-2'))).status).toBe(201);
    const disabled = await rest('POST', '/api/alerts/rest-2/disable');
    expect(disabled.status).toBe(200);
    expect(disabled.body).toMatchObject({
      status: 'disabled',
      alert_id: 'rest-2',
      alert: { enabled: false },
    });

    const enabledOnly = await rest('GET', '/api/alerts?enabled_only=true');
    expect(enabledOnly.body.map((a: Json) => a.alert_id)).not.toContain('rest-2');
    const all = await rest('GET', '/api/alerts?enabled_only=false');
    expect(all.body.map((a: Json) => a.alert_id)).toEqual(expect.arrayContaining(['rest-1', 'rest-2']));
    expect((await rest('GET', '/api/alerts?enabled_only=maybe')).status).toBe(400);

    const enabled = await rest('POST', '/api/alerts/rest-2/enable');
    expect(enabled.body).toMatchObject({ status: 'enabled', alert_id: 'rest-2', alert: { enabled: true } });
  });

  it('deletes', async () => {
    const deleted = await rest('DELETE', '/api/alerts/rest-2');
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ status: 'deleted', alert_id: 'rest-2' });
    expect((await rest('GET', '/api/alerts/rest-2')).status).toBe(404);
  });

  it("keeps another principal's alerts NOT_FOUND on every surface", async () => {
    const other = keys.other.secret;
    expect((await rest('GET', '/api/alerts/rest-1', undefined, other)).status).toBe(404);
    expect((await rest('DELETE', '/api/alerts/rest-1', undefined, other)).status).toBe(404);
    expect((await rest('PUT', '/api/alerts/rest-1', emailAlert('rest-1'), other)).status).toBe(404);
    const listed = await rest('GET', '/api/alerts', undefined, other);
    expect(listed.body).toEqual([]);
    const viaGraphql = await gql(
      'query($id: String!) { alert(id: $id) { alertId } }',
      { id: 'rest-1' },
      other,
    );
    expect(viaGraphql.body.errors[0].extensions.code).toBe('NOT_FOUND');
    const { result } = await tool(await mcp(other), 'get-alert', { alert_id: 'rest-1' });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result)).toContain('NOT_FOUND');
    // The other principal may use the same id for its own alert.
    expect((await rest('POST', '/api/alerts', emailAlert('rest-1'), other)).status).toBe(201);
    expect((await rest('GET', '/api/alerts/rest-1')).body.name).toBe('Alert rest-1');
  });

  it('works through GraphQL with typed inputs; secrets are only has_* flags', async () => {
    const created = await gql(
      `mutation($input: AlertInput!) { createAlert(input: $input) { ${ALERT_FIELDS} } }`,
      {
        input: {
          alertId: 'gql-1',
          name: 'GraphQL alert',
          trigger: {
            type: 'WATCHDOG_EVENT',
            eventFilter: { severities: ['CRITICAL'], eventTypes: ['FLASH_CRASH'] },
          },
          deliveryMethods: ['CHAT', 'WEBHOOK'],
          chatConfig: { botToken: BOT_TOKEN, chatIds: ['42'] },
          webhookConfig: {
            url: 'https://hooks.example.com/in',
            headers: [{ name: 'X-Team', value: 'ops' }],
            authToken: AUTH_TOKEN,
            signingSecret: SIGNING,
          },
        },
      },
    );
    expect(created.body.errors, created.text).toBeUndefined();
    expect(created.body.data.createAlert).toEqual({
      alertId: 'gql-1',
      name: 'GraphQL alert',
      enabled: true,
      cooldownSeconds: 60,
      deliveryMethods: ['CHAT', 'WEBHOOK'],
      trigger: {
        type: 'WATCHDOG_EVENT',
        eventFilter: { severities: ['CRITICAL'], eventTypes: ['FLASH_CRASH'] },
      },
      emailConfig: null,
      chatConfig: { chatIds: ['42'], hasBotToken: true },
      webhookConfig: {
        url: 'https://hooks.example.com/in',
        method: 'POST',
        headers: [{ name: 'X-Team', value: 'ops' }],
        hasAuthToken: true,
        hasSigningSecret: true,
      },
    });

    // Update without secrets keeps them; an invalid field is INVALID_ARGUMENTS naming the wire field.
    const updated = await gql(
      `mutation($input: AlertInput!) { updateAlert(id: "gql-1", input: $input) { ${ALERT_FIELDS} } }`,
      {
        input: {
          name: 'Renamed',
          trigger: { type: 'WATCHDOG_EVENT' },
          deliveryMethods: ['CHAT'],
          chatConfig: { chatIds: ['43'] },
        },
      },
    );
    expect(updated.body.errors, updated.text).toBeUndefined();
    expect(updated.body.data.updateAlert.chatConfig).toEqual({ chatIds: ['43'], hasBotToken: true });

    const invalid = await gql('mutation($input: AlertInput!) { createAlert(input: $input) { alertId } }', {
      input: {
        alertId: 'gql-2',
        name: 'x',
        trigger: { type: 'PRICE_THRESHOLD', symbol: 'AAPL' },
        deliveryMethods: ['EMAIL'],
      },
    });
    expect(invalid.body.errors[0].extensions.code).toBe('INVALID_ARGUMENTS');
    const fields = invalid.body.errors[0].extensions.issues.map((i: Json) => i.field);
    expect(fields).toContain('trigger.price_threshold');

    const listed = await gql(`{ alerts(enabledOnly: true) { ${ALERT_FIELDS} } }`);
    expect(listed.body.data.alerts.map((a: Json) => a.alertId)).toEqual(
      expect.arrayContaining(['rest-1', 'gql-1']),
    );
  });

  it('works through the MCP tools with wire-shaped arguments', async () => {
    const client = await mcp();
    const names = (await client.listTools()).tools.map((x) => x.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'create-alert',
        'list-alerts',
        'get-alert',
        'update-alert',
        'delete-alert',
        'enable-alert',
        'disable-alert',
        'test-alert',
        'get-alert-deliveries',
      ]),
    );
    const created = await tool(client, 'create-alert', emailAlert('mcp-1'));
    expect(created.result.isError, created.text).toBeFalsy();
    expect(created.result.structuredContent).toMatchObject({
      alert_id: 'mcp-1',
      enabled: true,
      email_config: { has_password: true },
    });
    // Arguments that do not fit are a malformed call (a protocol error), naming the wire field.
    await expect(
      tool(client, 'create-alert', { ...emailAlert('mcp-2'), cooldown_seconds: 'x' }),
    ).rejects.toThrow(/cooldown_seconds/);
    // So is one the store refuses (INVALID_ARGUMENTS, whichever check found it).
    await expect(
      tool(client, 'create-alert', { ...emailAlert('mcp-2'), delivery_methods: ['chat'] }),
    ).rejects.toThrow(/chat_config: is required/);

    const { alert_id: _id, ...rest } = emailAlert('mcp-1', { name: 'MCP renamed' });
    const updated = await tool(client, 'update-alert', {
      alert_id: 'mcp-1',
      ...rest,
      email_config: { smtp_host: 'mail.example.com', to_emails: ['ops@example.com'] },
    });
    expect(updated.result.structuredContent).toMatchObject({
      name: 'MCP renamed',
      email_config: { has_password: true },
    });
    const disabled = await tool(client, 'disable-alert', { alert_id: 'mcp-1' });
    expect(disabled.result.structuredContent).toMatchObject({ status: 'disabled', alert_id: 'mcp-1' });
    const listed = await tool(client, 'list-alerts', { enabled_only: true });
    expect(listed.result.structuredContent.alerts.map((a: Json) => a.alert_id)).not.toContain('mcp-1');
    const got = await tool(client, 'get-alert', { alert_id: 'mcp-1' });
    expect(got.result.structuredContent.enabled).toBe(false);
    const deleted = await tool(client, 'delete-alert', { alert_id: 'mcp-1' });
    expect(deleted.result.structuredContent).toEqual({ status: 'deleted', alert_id: 'mcp-1' });
  });

  it('test-sends through a webhook and records the attempt', async () => {
    const created = await rest('POST', '/api/alerts', {
      alert_id: 'hook-1',
      name: 'Hook',
      enabled: false,
      trigger: { type: 'watchdog_event' },
      delivery_methods: ['webhook'],
      webhook_config: { url: hookUrl, auth_token: AUTH_TOKEN, signing_secret: SIGNING },
    });
    expect(created.status, created.text).toBe(201);
    const sent = await rest('POST', '/api/alerts/hook-1/test');
    expect(sent.status, sent.text).toBe(200);
    expect(sent.body.alert_id).toBe('hook-1');
    expect(sent.body.results).toHaveLength(1);
    expect(sent.body.results[0]).toMatchObject({
      method: 'webhook',
      status: 'delivered',
      response_code: 204,
      error: null,
    });
    expect(hits).toHaveLength(1);
    expect(hits[0]!.headers.authorization).toBe(`Bearer ${AUTH_TOKEN}`);

    const deliveries = await rest('GET', '/api/alerts/hook-1/deliveries?limit=10');
    expect(deliveries.status).toBe(200);
    expect(deliveries.body).toEqual([
      expect.objectContaining({
        delivery_id: sent.body.results[0].delivery_id,
        attempt: 1,
        method: 'webhook',
        status: 'delivered',
      }),
    ]);
    expect((await rest('GET', '/api/alerts/hook-1/deliveries?limit=0')).status).toBe(400);
  });
});
