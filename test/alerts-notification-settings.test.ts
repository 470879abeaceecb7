import { randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alerts } from '../src/alerts/alerts.sql.ts';
import { ADMIN_KEY, bearer, type IssuedKey, issueKey } from './support/access.ts';
import { createTestApp, type TestApp } from './support/app.ts';

/**
 * An alert's send_resolved, resolve_timeout_seconds and grouping over real HTTP: written on each
 * surface (REST, GraphQL, the MCP tools) and read back on the others, defaults filled in; a replace
 * without them resets them; grouping on a threshold alert is refused naming `grouping`; and an alert
 * stored before they existed reads back with their defaults.
 */
// biome-ignore lint/suspicious/noExplicitAny: JSON answers are checked by the expectations, not by types.
type Json = any;

const DEFAULTS = { send_resolved: false, resolve_timeout_seconds: 300, grouping: null };
const GQL_FIELDS =
  'alertId sendResolved resolveTimeoutSeconds grouping { groupBy groupWaitSeconds groupIntervalSeconds repeatIntervalSeconds }';

describe('alert notification settings over REST, GraphQL and MCP', () => {
  let t: TestApp;
  let key: IssuedKey;
  let client: Client;

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
    key = await issueKey(t.app, 'settings owner', ['WRITE']);
    client = new Client({ name: 'vigil-alert-settings-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), {
        requestInit: { headers: bearer(key.secret) },
      }),
    );
  });
  afterAll(async () => {
    await client?.close();
    await t?.close();
  });

  async function rest(method: string, path: string, body?: unknown) {
    const response = await fetch(`${t.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...bearer(key.secret) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, text, body: JSON.parse(text) as Json };
  }
  async function gql(query: string, variables?: Record<string, unknown>) {
    const response = await fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/graphql-response+json',
        ...bearer(key.secret),
      },
      body: JSON.stringify({ query, variables }),
    });
    const text = await response.text();
    return { text, body: JSON.parse(text) as Json };
  }
  const gqlAlert = async (id: string) =>
    (await gql(`query($id: String!) { alert(id: $id) { ${GQL_FIELDS} } }`, { id })).body.data.alert;
  const tool = async (name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args })) as Json;

  const alert = (id: string, extra: Record<string, unknown> = {}) => ({
    alert_id: id,
    name: `Alert ${id}`,
    trigger: { type: 'watchdog_event', event_filter: { event_types: ['unusual_volume'] } },
    delivery_methods: ['webhook'],
    webhook_config: { url: 'https://hooks.example.com/vigil' },
    ...extra,
  });

  it('answers the defaults for an alert written without them, on every surface', async () => {
    const created = await rest('POST', '/api/alerts', alert('plain'));
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject(DEFAULTS);
    expect(await gqlAlert('plain')).toEqual({
      alertId: 'plain',
      sendResolved: false,
      resolveTimeoutSeconds: 300,
      grouping: null,
    });
    expect((await tool('get-alert', { alert_id: 'plain' })).structuredContent).toMatchObject(DEFAULTS);
  });

  it('carries what REST writes to GraphQL and MCP, and resets it on a replace that leaves it out', async () => {
    const created = await rest(
      'POST',
      '/api/alerts',
      alert('rest', {
        send_resolved: true,
        resolve_timeout_seconds: 900,
        grouping: { group_by: ['watchdog', 'asset'], group_wait_seconds: 0 },
      }),
    );
    expect(created.status, created.text).toBe(201);
    const grouping = {
      group_by: ['watchdog', 'asset'],
      group_wait_seconds: 0,
      group_interval_seconds: 300,
      repeat_interval_seconds: 14_400,
    };
    expect(created.body).toMatchObject({ send_resolved: true, resolve_timeout_seconds: 900, grouping });
    expect((await rest('GET', '/api/alerts/rest')).body).toMatchObject({ grouping });
    expect(await gqlAlert('rest')).toEqual({
      alertId: 'rest',
      sendResolved: true,
      resolveTimeoutSeconds: 900,
      grouping: {
        groupBy: ['WATCHDOG', 'ASSET'],
        groupWaitSeconds: 0,
        groupIntervalSeconds: 300,
        repeatIntervalSeconds: 14_400,
      },
    });
    expect((await tool('get-alert', { alert_id: 'rest' })).structuredContent).toMatchObject({
      send_resolved: true,
      resolve_timeout_seconds: 900,
      grouping,
    });

    const { alert_id: _id, ...withoutId } = alert('rest');
    const replaced = await rest('PUT', '/api/alerts/rest', withoutId);
    expect(replaced.status, replaced.text).toBe(200);
    expect(replaced.body).toMatchObject(DEFAULTS);
    expect(await gqlAlert('rest')).toMatchObject({ sendResolved: false, grouping: null });
  });

  it('carries what GraphQL writes to REST, and clears grouping with null on update', async () => {
    const created = await gql(
      `mutation($input: AlertInput!) { createAlert(input: $input) { ${GQL_FIELDS} } }`,
      {
        input: {
          alertId: 'gql',
          name: 'GraphQL',
          trigger: { type: 'WATCHDOG_EVENT' },
          deliveryMethods: ['WEBHOOK'],
          webhookConfig: { url: 'https://hooks.example.com/vigil' },
          sendResolved: true,
          resolveTimeoutSeconds: 60,
          grouping: { groupBy: ['EVENT_TYPE'], repeatIntervalSeconds: 604_800 },
        },
      },
    );
    expect(created.body.errors, created.text).toBeUndefined();
    expect(created.body.data.createAlert).toEqual({
      alertId: 'gql',
      sendResolved: true,
      resolveTimeoutSeconds: 60,
      grouping: {
        groupBy: ['EVENT_TYPE'],
        groupWaitSeconds: 30,
        groupIntervalSeconds: 300,
        repeatIntervalSeconds: 604_800,
      },
    });
    expect((await rest('GET', '/api/alerts/gql')).body).toMatchObject({
      send_resolved: true,
      resolve_timeout_seconds: 60,
      grouping: { group_by: ['event_type'], repeat_interval_seconds: 604_800 },
    });

    const updated = await gql(
      `mutation($input: AlertInput!) { updateAlert(id: "gql", input: $input) { ${GQL_FIELDS} } }`,
      {
        input: {
          name: 'GraphQL',
          trigger: { type: 'WATCHDOG_EVENT' },
          deliveryMethods: ['WEBHOOK'],
          webhookConfig: { url: 'https://hooks.example.com/vigil' },
          sendResolved: true,
          grouping: null,
        },
      },
    );
    expect(updated.body.errors, updated.text).toBeUndefined();
    expect(updated.body.data.updateAlert).toEqual({
      alertId: 'gql',
      sendResolved: true,
      resolveTimeoutSeconds: 300,
      grouping: null,
    });
  });

  it('carries what the MCP tools write to REST and GraphQL', async () => {
    const created = await tool(
      'create-alert',
      alert('mcp', { send_resolved: true, grouping: { group_by: [], group_interval_seconds: 1 } }),
    );
    expect(created.isError, JSON.stringify(created)).toBeFalsy();
    expect(created.structuredContent).toMatchObject({
      send_resolved: true,
      resolve_timeout_seconds: 300,
      grouping: { group_by: [], group_wait_seconds: 30, group_interval_seconds: 1 },
    });
    const updated = await tool('update-alert', alert('mcp', { resolve_timeout_seconds: 86_400 }));
    expect(updated.structuredContent).toMatchObject({
      send_resolved: false,
      resolve_timeout_seconds: 86_400,
      grouping: null,
    });
    expect((await rest('GET', '/api/alerts/mcp')).body).toMatchObject({
      send_resolved: false,
      resolve_timeout_seconds: 86_400,
      grouping: null,
    });
    expect(await gqlAlert('mcp')).toMatchObject({ resolveTimeoutSeconds: 86_400, grouping: null });
  });

  it('refuses grouping on a threshold alert and values out of range, naming the field, on every surface', async () => {
    const threshold = alert('threshold', {
      trigger: { type: 'price_threshold', symbol: 'AAPL', price_threshold: 200 },
      grouping: { group_by: ['asset'] },
    });
    const refused = await rest('POST', '/api/alerts', threshold);
    expect(refused.status, refused.text).toBe(422);
    expect(refused.body.error).toMatchObject({
      code: 'INVALID_ARGUMENTS',
      message: 'invalid alert: grouping: applies to watchdog_event alerts only',
      details: { field: 'grouping' },
    });
    const outOfRange = await rest('POST', '/api/alerts', alert('range', { resolve_timeout_seconds: 30 }));
    expect(outOfRange.status).toBe(422);
    expect(outOfRange.body.error.details).toMatchObject({ field: 'resolve_timeout_seconds' });

    const viaGraphql = await gql('mutation($input: AlertInput!) { createAlert(input: $input) { alertId } }', {
      input: {
        alertId: 'threshold',
        name: 'x',
        trigger: { type: 'VOLUME_THRESHOLD', symbol: 'AAPL', volumeThreshold: 1e6 },
        deliveryMethods: ['WEBHOOK'],
        webhookConfig: { url: 'https://hooks.example.com/vigil' },
        grouping: { groupWaitSeconds: 3_601 },
      },
    });
    expect(viaGraphql.body.errors[0].extensions.code).toBe('INVALID_ARGUMENTS');
    // Both of its problems: the wait out of range, and grouping on a volume_threshold alert.
    expect(viaGraphql.body.errors[0].extensions.issues).toEqual([
      { field: 'grouping.group_wait_seconds', message: 'must be 0 to 3600' },
      { field: 'grouping', message: 'applies to watchdog_event alerts only' },
    ]);
    await expect(tool('create-alert', threshold)).rejects.toThrow(/grouping: applies to watchdog_event/);
    expect((await rest('GET', '/api/alerts/threshold')).status).toBe(404);
  });

  it('reads an alert stored before these settings existed with their defaults', async () => {
    expect((await rest('POST', '/api/alerts', alert('old', { send_resolved: true }))).status).toBe(201);
    // The row as an earlier version wrote it: its config without the keys.
    await t.app.deps.database.db
      .update(alerts)
      .set({ config: sql`${alerts.config} - 'send_resolved' - 'resolve_timeout_seconds' - 'grouping'` })
      .where(and(eq(alerts.owner, key.id), eq(alerts.id, 'old')));
    expect((await rest('GET', '/api/alerts/old')).body).toMatchObject(DEFAULTS);
    expect(await gqlAlert('old')).toMatchObject({
      sendResolved: false,
      resolveTimeoutSeconds: 300,
      grouping: null,
    });
  });
});
