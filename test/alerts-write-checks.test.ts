/**
 * What an alert write refuses before anything is stored, on every surface (REST, GraphQL, MCP):
 * destinations that can never be delivered to (webhook headers no client sends, literal internal
 * addresses in any spelling), credentials that would go where they must not (the server's SMTP
 * login, a password without TLS, a bot token that is not one path segment), and creates beyond
 * ALERTS_MAX_PER_OWNER. Nothing here opens a connection to a destination: every refusal is made
 * when the alert is written.
 */
import { randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, bearer, type IssuedKey, issueKey } from './support/access.ts';
import { createTestApp, type TestApp } from './support/app.ts';

// biome-ignore lint/suspicious/noExplicitAny: JSON answers are checked by the expectations, not by types.
type Json = any;

const LIMIT = 4;
const SERVER_PASSWORD = 'server-smtp-pw-93c1';
const BOT_TOKEN_PATH = '123:abc/../../getUpdates';

describe('alert writes: what can never be sent, credentials, and the per-owner limit', () => {
  let t: TestApp;
  const keys = {} as Record<'owner' | 'capped' | 'racer' | 'other', IssuedKey>;
  const answers: string[] = [];
  const clients: Client[] = [];

  beforeAll(async () => {
    t = await createTestApp({
      listen: true,
      env: {
        AUTH_REQUIRED: 'true',
        ADMIN_API_KEY: ADMIN_KEY,
        RATE_LIMIT_MAX: '10000',
        SECRETS_KEY: randomBytes(32).toString('hex'),
        ALERT_DELIVERY_ALLOWED_HOSTS: '127.0.0.1,10.9.0.0/16',
        ALERTS_MAX_PER_OWNER: String(LIMIT),
        SMTP_HOST: 'relay.example.com',
        SMTP_PORT: '587',
        SMTP_USER: 'vigil',
        SMTP_PASSWORD: SERVER_PASSWORD,
        SMTP_FROM_EMAIL: 'vigil@example.com',
        SMTP_PLAINTEXT_AUTH_HOSTS: 'plain-relay.example.com',
      },
    });
    keys.owner = await issueKey(t.app, 'owner', ['WRITE']);
    keys.capped = await issueKey(t.app, 'capped', ['WRITE']);
    keys.racer = await issueKey(t.app, 'racer', ['WRITE']);
    keys.other = await issueKey(t.app, 'other', ['WRITE']);
  });
  afterAll(async () => {
    const all = answers.join('\n');
    expect(all).not.toContain(SERVER_PASSWORD);
    expect(all).not.toContain(BOT_TOKEN_PATH);
    for (const client of clients) await client.close();
    await t?.close();
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

  async function gql(query: string, variables: Record<string, unknown>, key = keys.owner.secret) {
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
    const client = new Client({ name: 'vigil-alert-writes', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), { requestInit: { headers: bearer(key) } }),
    );
    clients.push(client);
    return client;
  }

  const hook = (id: string, webhook: Record<string, unknown>) => ({
    alert_id: id,
    name: `Hook ${id}`,
    trigger: { type: 'watchdog_event' },
    delivery_methods: ['webhook'],
    webhook_config: webhook,
  });
  const mail = (id: string, email: Record<string, unknown>) => ({
    alert_id: id,
    name: `Mail ${id}`,
    trigger: { type: 'watchdog_event' },
    delivery_methods: ['email'],
    email_config: { to_emails: ['ops@example.com'], ...email },
  });

  /** A REST create that must be a 422 naming exactly these fields; the alert is not stored. */
  async function refused(body: Json, fields: string[], message?: RegExp) {
    const answer = await rest('POST', '/api/alerts', body);
    expect(answer.status, answer.text).toBe(422);
    expect(answer.body.error.code).toBe('INVALID_ARGUMENTS');
    const issues = answer.body.error.details.issues as Array<{ field: string; message: string }>;
    expect(issues.map((i) => i.field)).toEqual(fields);
    if (message) expect(issues[0]?.message).toMatch(message);
    expect((await rest('GET', `/api/alerts/${body.alert_id}`)).status).toBe(404);
    return issues;
  }

  describe('webhook headers no HTTP client sends', () => {
    it.each([
      'Connection',
      'Keep-Alive',
      'Upgrade',
      'Expect',
      'Transfer-Encoding',
      'Host',
      'Content-Length',
      'TE',
      'Trailer',
      'Proxy-Authorization',
    ])('refuses %s with 422 naming the header', async (name) => {
      await refused(
        hook('h-name', { url: 'https://hooks.example.com/in', headers: { 'X-Ok': '1', [name]: 'x' } }),
        [`webhook_config.headers.${name}`],
        /managed by the HTTP connection/,
      );
    });

    it.each([
      ['non-ASCII', 'café'],
      ['a control character', 'a\u0001b'],
      ['a line break', 'ops\r\nX-Injected: 1'],
      ['NUL', 'a\u0000b'],
    ])('refuses a value with %s, naming the header', async (_what, value) => {
      await refused(
        hook('h-value', { url: 'https://hooks.example.com/in', headers: { 'X-Team': value } }),
        ['webhook_config.headers.X-Team'],
        /printable ASCII/,
      );
    });

    it('refuses it through GraphQL and MCP too, naming the header', async () => {
      const answer = await gql('mutation($input: AlertInput!) { createAlert(input: $input) { alertId } }', {
        input: {
          alertId: 'h-gql',
          name: 'x',
          trigger: { type: 'WATCHDOG_EVENT' },
          deliveryMethods: ['WEBHOOK'],
          webhookConfig: {
            url: 'https://hooks.example.com/in',
            headers: [{ name: 'Transfer-Encoding', value: 'chunked' }],
          },
        },
      });
      expect(answer.body.errors[0].extensions.code).toBe('INVALID_ARGUMENTS');
      expect(answer.body.errors[0].extensions.issues.map((i: Json) => i.field)).toEqual([
        'webhook_config.headers.Transfer-Encoding',
      ]);
      const client = await mcp();
      await expect(
        client.callTool({
          name: 'create-alert',
          arguments: hook('h-mcp', { url: 'https://hooks.example.com/in', headers: { Upgrade: 'h2c' } }),
        }),
      ).rejects.toThrow(/webhook_config\.headers\.Upgrade/);
    });
  });

  describe('literal internal addresses', () => {
    it.each([
      ['http://169.254.169.254/latest/meta-data/', /169\.254\.169\.254 is a cloud metadata address/],
      ['http://2852039166/', /169\.254\.169\.254 is a cloud metadata address/],
      ['http://[::ffff:169.254.169.254]/', /cloud metadata address/],
      ['http://[fd00:ec2::254]/', /cloud metadata address/],
      ['http://127.0.0.2:8080/', /127\.0\.0\.2 is a loopback address/],
      ['http://2130706434/', /127\.0\.0\.2 is a loopback address/],
      ['http://0x7f.0.0.2/', /127\.0\.0\.2 is a loopback address/],
      ['http://0177.0.0.2/', /127\.0\.0\.2 is a loopback address/],
      ['http://[::1]/', /::1 is a loopback address/],
      ['http://10.0.0.1/', /10\.0\.0\.1 is a private address/],
      ['http://012.0.0.1/', /10\.0\.0\.1 is a private address/],
      ['http://[::ffff:a00:1]/', /private address/],
      ['http://192.168.1.10/', /private address/],
      ['http://172.16.5.4/', /private address/],
      ['http://100.64.0.1/', /shared \(CGNAT\) address/],
      ['http://169.254.10.10/', /link-local address/],
      ['http://[fe80::1]/', /link-local address/],
      ['http://0.0.0.0/', /unspecified address/],
      ['http://[::]/', /unspecified address/],
    ])('refuses the webhook URL %s with 422 naming the field and the reason', async (url, reason) => {
      const [issue] = await refused(hook('addr', { url }), ['webhook_config.url']);
      expect(issue?.message).toMatch(reason);
      expect(issue?.message).toMatch(/ALERT_DELIVERY_ALLOWED_HOSTS/);
    });

    it.each([
      ['169.254.169.254', /cloud metadata address/],
      ['2130706434', /2130706434 \(127\.0\.0\.2\) is a loopback address/],
      ['0x0a000001', /\(10\.0\.0\.1\) is a private address/],
      ['[::ffff:127.0.0.2]', /loopback address/],
      ['192.168.0.25', /private address/],
    ])('refuses the SMTP host %s with 422 naming the field and the reason', async (host, reason) => {
      const [issue] = await refused(mail('smtp-addr', { smtp_host: host }), ['email_config.smtp_host']);
      expect(issue?.message).toMatch(reason);
    });

    it('accepts what ALERT_DELIVERY_ALLOWED_HOSTS allows, public addresses, and names (checked when delivering)', async () => {
      for (const [id, url] of [
        ['ok-loop', 'http://127.0.0.1:9/in'],
        ['ok-mapped', 'http://[::ffff:127.0.0.1]:9/in'],
        ['ok-block', 'http://10.9.3.4/in'],
      ]) {
        const created = await rest('POST', '/api/alerts', hook(id!, { url }), keys.other.secret);
        expect(created.status, `${url}: ${created.text}`).toBe(201);
      }
      const named = await rest(
        'PUT',
        '/api/alerts/ok-block',
        hook('ok-block', { url: 'http://internal.example/in' }),
        keys.other.secret,
      );
      expect(named.status, named.text).toBe(200);
      expect(
        (
          await rest(
            'PUT',
            '/api/alerts/ok-block',
            hook('ok-block', { url: 'http://10.10.0.1/' }),
            keys.other.secret,
          )
        ).status,
      ).toBe(422);
      for (const id of ['ok-loop', 'ok-mapped', 'ok-block'])
        await rest('DELETE', `/api/alerts/${id}`, undefined, keys.other.secret);
    });

    it('refuses a URL that carries credentials (the sender never sends one)', async () => {
      await refused(
        hook('creds', { url: 'https://user:pw@hooks.example.com/in' }),
        ['webhook_config.url'],
        /credentials/,
      );
    });
  });

  describe('SMTP credentials', () => {
    it('refuses a user of its own without a password: the server password goes only with its own settings', async () => {
      for (const email of [
        { smtp_user: 'attacker' },
        { smtp_user: 'vigil', smtp_port: 2525 },
        { smtp_user: 'vigil', use_tls: false },
        { smtp_host: 'mx.attacker.example', smtp_user: 'vigil' },
      ]) {
        const [issue] = await refused(mail('no-pw', email), ['email_config.smtp_password']);
        expect(issue?.message).toMatch(/SMTP_PASSWORD is used only with its own SMTP_HOST/);
      }
    });

    it('refuses a password without TLS unless SMTP_PLAINTEXT_AUTH_HOSTS lists the host', async () => {
      const [issue] = await refused(
        mail('plain', {
          smtp_host: 'mx.example.com',
          smtp_user: 'me',
          smtp_password: 'mine',
          use_tls: false,
        }),
        ['email_config.use_tls'],
      );
      expect(issue?.message).toBe(
        'is false, and a password is never sent without TLS unless SMTP_PLAINTEXT_AUTH_HOSTS lists the host (mx.example.com is not listed)',
      );
      const listed = await rest(
        'POST',
        '/api/alerts',
        mail('plain-ok', {
          smtp_host: 'plain-relay.example.com',
          smtp_user: 'me',
          smtp_password: 'mine',
          use_tls: false,
        }),
        keys.other.secret,
      );
      expect(listed.status, listed.text).toBe(201);
      await rest('DELETE', '/api/alerts/plain-ok', undefined, keys.other.secret);
    });

    it("accepts the server's own settings, its own login over TLS, and no login at all", async () => {
      for (const [id, email] of [
        ['srv', {}],
        ['srv-tls-off', { use_tls: false }],
        ['own', { smtp_host: 'mx.example.com', smtp_user: 'me', smtp_password: 'mine' }],
      ] as const) {
        const created = await rest('POST', '/api/alerts', mail(id, email), keys.other.secret);
        expect(created.status, created.text).toBe(201);
        await rest('DELETE', `/api/alerts/${id}`, undefined, keys.other.secret);
      }
    });

    it('counts a kept password on replace, and answers GraphQL with the snake_case field', async () => {
      const created = await rest(
        'POST',
        '/api/alerts',
        mail('kept', { smtp_host: 'mx.example.com', smtp_user: 'me', smtp_password: 'mine' }),
      );
      expect(created.status, created.text).toBe(201);
      const replaced = await rest(
        'PUT',
        '/api/alerts/kept',
        mail('kept', { smtp_host: 'mx.example.com', smtp_user: 'me', use_tls: false }),
      );
      expect(replaced.status, replaced.text).toBe(422);
      expect(replaced.body.error.details.issues.map((i: Json) => i.field)).toEqual(['email_config.use_tls']);
      const viaGraphql = await gql(
        'mutation($input: AlertInput!) { updateAlert(id: "kept", input: $input) { alertId } }',
        {
          input: {
            name: 'x',
            trigger: { type: 'WATCHDOG_EVENT' },
            deliveryMethods: ['EMAIL'],
            emailConfig: {
              smtpHost: 'mx.example.com',
              smtpUser: 'me',
              useTls: false,
              toEmails: ['a@example.com'],
            },
          },
        },
      );
      expect(viaGraphql.body.errors[0].extensions.code).toBe('INVALID_ARGUMENTS');
      expect(viaGraphql.body.errors[0].extensions.issues.map((i: Json) => i.field)).toEqual([
        'email_config.use_tls',
      ]);
      await rest('DELETE', '/api/alerts/kept');
    });
  });

  describe('chat bot token', () => {
    it('refuses a token that is not one path segment, naming the field and never quoting the token', async () => {
      for (const token of [BOT_TOKEN_PATH, '123:abc?x=1', '123:abc#x', '123..abc', '123:abc%2Fx']) {
        const body = {
          alert_id: 'chat-token',
          name: 'Chat',
          trigger: { type: 'watchdog_event' },
          delivery_methods: ['chat'],
          chat_config: { chat_ids: ['1'], bot_token: token },
        };
        const answer = await rest('POST', '/api/alerts', body);
        expect(answer.status, token).toBe(422);
        expect(answer.body.error.details.issues.map((i: Json) => i.field)).toEqual(['chat_config.bot_token']);
        expect(answer.text).not.toContain(token);
      }
    });
  });

  describe('ALERTS_MAX_PER_OWNER', () => {
    const simple = (id: string) => hook(id, { url: 'https://hooks.example.com/in' });

    it('refuses a create beyond the limit with 429 naming the limit and the setting, on every surface', async () => {
      const key = keys.capped.secret;
      for (let i = 0; i < LIMIT; i++) {
        const created = await rest('POST', '/api/alerts', simple(`cap-${i}`), key);
        expect(created.status, created.text).toBe(201);
      }
      const over = await rest('POST', '/api/alerts', simple('cap-over'), key);
      expect(over.status, over.text).toBe(429);
      expect(over.body.error).toMatchObject({
        code: 'TOO_MANY_ALERTS',
        details: { limit: LIMIT, setting: 'ALERTS_MAX_PER_OWNER' },
      });
      expect(over.body.error.message).toMatch(/ALERTS_MAX_PER_OWNER/);
      // An id in use is still answered as such.
      expect((await rest('POST', '/api/alerts', simple('cap-0'), key)).status).toBe(400);

      const viaGraphql = await gql(
        'mutation($input: AlertInput!) { createAlert(input: $input) { alertId } }',
        {
          input: {
            alertId: 'cap-gql',
            name: 'x',
            trigger: { type: 'WATCHDOG_EVENT' },
            deliveryMethods: ['WEBHOOK'],
            webhookConfig: { url: 'https://hooks.example.com/in' },
          },
        },
        key,
      );
      expect(viaGraphql.body.errors[0].extensions).toMatchObject({
        code: 'TOO_MANY_ALERTS',
        limit: LIMIT,
        setting: 'ALERTS_MAX_PER_OWNER',
      });

      const result = (await (
        await mcp(key)
      ).callTool({ name: 'create-alert', arguments: simple('cap-mcp') })) as Json;
      answers.push(JSON.stringify(result));
      expect(result.isError).toBe(true);
      expect(JSON.stringify(result)).toMatch(/TOO_MANY_ALERTS/);
      expect(JSON.stringify(result)).toMatch(/ALERTS_MAX_PER_OWNER/);

      const listed = await rest('GET', '/api/alerts', undefined, key);
      expect(listed.body).toHaveLength(LIMIT);
      // Deleting one makes room; replacing never counts as a create.
      expect((await rest('PUT', '/api/alerts/cap-1', simple('cap-1'), key)).status).toBe(200);
      expect((await rest('DELETE', '/api/alerts/cap-0', undefined, key)).status).toBe(200);
      expect((await rest('POST', '/api/alerts', simple('cap-again'), key)).status).toBe(201);
    });

    it('never lets concurrent creates of one owner overshoot', async () => {
      const key = keys.racer.secret;
      const answers = await Promise.all(
        Array.from({ length: 12 }, (_, i) => rest('POST', '/api/alerts', simple(`race-${i}`), key)),
      );
      const statuses = answers.map((a) => a.status).sort();
      expect(statuses.filter((s) => s === 201)).toHaveLength(LIMIT);
      expect(statuses.filter((s) => s === 429)).toHaveLength(12 - LIMIT);
      expect((await rest('GET', '/api/alerts', undefined, key)).body).toHaveLength(LIMIT);
    });
  });
});
