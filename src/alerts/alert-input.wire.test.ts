import { describe, expect, it } from 'vitest';
import { alertInputSchema, issuesOf, parseAlertInput } from './alert-input.wire.ts';
import { InvalidAlertError } from './alerts.errors.ts';

const minimal = {
  alert_id: 'btc-crash',
  name: 'BTC crash',
  trigger: { type: 'watchdog_event', event_filter: { event_types: ['flash_crash'] } },
  delivery_methods: ['webhook'],
  webhook_config: { url: 'https://hooks.example.com/vigil' },
};

const fail = (body: unknown) => {
  const parsed = alertInputSchema.safeParse(body);
  expect(parsed.success).toBe(false);
  return parsed.success ? [] : issuesOf(parsed.error);
};

describe('alertInputSchema', () => {
  it('fills the documented defaults', () => {
    const alert = alertInputSchema.parse(minimal);
    expect(alert).toMatchObject({
      enabled: true,
      cooldown_seconds: 60,
      description: '',
      trigger: { event_filter: { event_types: ['flash_crash'], severities: [], assets: [], watchdogs: [] } },
      webhook_config: { method: 'POST', headers: {} },
    });
    const email = alertInputSchema.parse({
      ...minimal,
      delivery_methods: ['email'],
      email_config: { to_emails: ['ops@example.com'] },
    });
    expect(email.email_config).toMatchObject({ use_tls: true });
  });

  it('names each bad field', () => {
    const issues = fail({
      ...minimal,
      alert_id: 'has space',
      trigger: { type: 'watchdog_event', event_filter: { severities: ['urgent'] } },
      delivery_methods: ['email', 'pigeon'],
      cooldown_seconds: -1,
    });
    const fields = issues.map((i) => i.field);
    expect(fields).toEqual(
      expect.arrayContaining([
        'alert_id',
        'trigger.event_filter.severities.0',
        'delivery_methods.1',
        'cooldown_seconds',
      ]),
    );
  });

  it('requires the config of every chosen method', () => {
    expect(fail({ ...minimal, delivery_methods: ['webhook', 'chat'] })).toEqual([
      { field: 'chat_config', message: 'is required for chat delivery' },
    ]);
  });

  it('refuses unknown fields, headers Vigil sets, and non-http URLs', () => {
    expect(fail({ ...minimal, colour: 'red' }).map((i) => i.field)).toContain('(body)');
    expect(
      fail({
        ...minimal,
        webhook_config: { url: 'https://x.example', headers: { 'X-Vigil-Signature': 'forged' } },
      }).map((i) => i.field),
    ).toEqual(['webhook_config.headers.X-Vigil-Signature']);
    expect(fail({ ...minimal, webhook_config: { url: 'file:///etc/passwd' } }).map((i) => i.field)).toEqual([
      'webhook_config.url',
    ]);
  });

  it('refuses, naming the header, a header no HTTP client sends as written', () => {
    const headerIssues = (headers: Record<string, string>) =>
      fail({ ...minimal, webhook_config: { url: 'https://x.example', headers } });
    for (const name of [
      'Connection',
      'keep-alive',
      'Upgrade',
      'Expect',
      'Transfer-Encoding',
      'Host',
      'Content-Length',
      'TE',
      'Trailer',
      'Proxy-Authorization',
      'proxy-connection',
    ]) {
      expect(headerIssues({ 'X-Fine': 'ok', [name]: 'x' }), name).toEqual([
        {
          field: `webhook_config.headers.${name}`,
          message: 'is managed by the HTTP connection (hop-by-hop or framing) and cannot be set',
        },
      ]);
    }
    for (const value of [
      'caf\u00e9',
      'a\u0000b',
      'line\r\nX-Injected: 1',
      'bell\u0007',
      'del\u007f',
      '\u{1F600}',
    ]) {
      const issues = headerIssues({ 'X-Team': value });
      expect(
        issues.map((i) => i.field),
        JSON.stringify(value),
      ).toEqual(['webhook_config.headers.X-Team']);
      expect(issues[0]?.message).toMatch(/printable ASCII/);
    }
    expect(headerIssues({ 'Bad Name': 'x', Authorization: 'Bearer x' })).toEqual([
      { field: 'webhook_config.headers.Bad Name', message: expect.stringMatching(/not a header name/) },
      { field: 'webhook_config.headers.Authorization', message: 'is set by Vigil: use auth_token' },
    ]);
    expect(
      alertInputSchema.parse({
        ...minimal,
        webhook_config: { url: 'https://x.example', headers: { 'X-Team': 'desk 1\tops ~!' } },
      }).webhook_config?.headers,
    ).toEqual({ 'X-Team': 'desk 1\tops ~!' });
  });

  it('refuses a webhook URL that carries credentials', () => {
    expect(fail({ ...minimal, webhook_config: { url: 'https://user:pw@x.example/in' } })).toEqual([
      { field: 'webhook_config.url', message: 'must not carry credentials: use auth_token or headers' },
    ]);
  });

  it('refuses a bot token that is not one path segment, without quoting it', () => {
    const chat = (bot_token: string) =>
      fail({ ...minimal, delivery_methods: ['chat'], chat_config: { chat_ids: ['1'], bot_token } });
    for (const token of [
      '123:abc/../../admin',
      '123:abc?x=1',
      '123:abc#frag',
      '123..abc',
      '123:abc%2F',
      '123 abc',
      'x\\y',
    ]) {
      const issues = chat(token);
      expect(
        issues.map((i) => i.field),
        token,
      ).toEqual(['chat_config.bot_token']);
      expect(JSON.stringify(issues)).not.toContain(token);
    }
    expect(
      alertInputSchema.parse({
        ...minimal,
        delivery_methods: ['chat'],
        chat_config: { chat_ids: ['1'], bot_token: '123456:AAH-x_y.z~' },
      }).chat_config?.bot_token,
    ).toBe('123456:AAH-x_y.z~');
  });

  it('reads the threshold trigger kinds with their defaults', () => {
    const price = alertInputSchema.parse({
      ...minimal,
      trigger: { type: 'price_threshold', symbol: 'btc/usdt', price_threshold: 100_000 },
    });
    expect(price.trigger).toEqual({
      type: 'price_threshold',
      symbol: 'BTC/USDT',
      price_threshold: 100_000,
      direction: 'above',
      hysteresis_percent: 0.5,
    });
    expect(fail({ ...minimal, trigger: { type: 'sometimes' } }).map((i) => i.field)).toEqual([
      'trigger.type',
    ]);
  });
});

describe('parseAlertInput', () => {
  it('reads a wire alert into the model, defaults applied', () => {
    expect(parseAlertInput(minimal)).toEqual({
      id: 'btc-crash',
      name: 'BTC crash',
      description: '',
      enabled: true,
      trigger: {
        type: 'watchdog_event',
        eventFilter: { eventTypes: ['flash_crash'], severities: [], assets: [], watchdogs: [] },
      },
      deliveryMethods: ['webhook'],
      email: null,
      chat: null,
      webhook: { url: 'https://hooks.example.com/vigil', method: 'POST', headers: {} },
      slack: null,
      discord: null,
      teams: null,
      alertmanager: null,
      pagerduty: null,
      cooldownSeconds: 60,
      muteWindows: [],
      sendResolved: false,
      resolveTimeoutSeconds: 300,
      grouping: null,
      secrets: {},
    });
  });

  it('reads a Slack webhook URL as a secret, and refuses one that is not an http(s) URL', () => {
    const url = 'https://hooks.slack.com/services/T0/B0/xyz';
    const alert = parseAlertInput({
      ...minimal,
      delivery_methods: ['slack'],
      slack_config: { webhook_url: url },
    });
    expect(alert.slack).toEqual({});
    expect(alert.secrets).toEqual({ slackWebhookUrl: url });
    expect(() => parseAlertInput({ ...minimal, delivery_methods: ['slack'] })).toThrow(
      /slack_config: is required for slack delivery/,
    );
    expect(() =>
      parseAlertInput({
        ...minimal,
        delivery_methods: ['slack'],
        slack_config: { webhook_url: 'ftp://x/y' },
      }),
    ).toThrow(/slack_config\.webhook_url/);
  });

  it('keeps optional settings absent, and tells a secret written, removed (null) and left out apart', () => {
    const alert = parseAlertInput({
      ...minimal,
      trigger: { type: 'custom_condition', condition: 'SCAN [AAPL] WHERE RSI < 30' },
      delivery_methods: ['email', 'chat', 'webhook'],
      email_config: { smtp_host: 'mail.example.com', smtp_password: 'p', to_emails: ['ops@example.com'] },
      chat_config: { chat_ids: [42], bot_token: null },
      webhook_config: { url: 'https://hooks.example.com/vigil', method: 'PUT', headers: { 'X-Team': 'ops' } },
    });
    expect(alert.trigger).toEqual({
      type: 'custom_condition',
      condition: 'SCAN [AAPL] WHERE RSI < 30',
      checkIntervalSeconds: 60,
    });
    expect(alert.email).toEqual({
      smtpHost: 'mail.example.com',
      useTls: true,
      toEmails: ['ops@example.com'],
    });
    expect(alert.chat).toEqual({ chatIds: ['42'] });
    expect(alert.webhook).toEqual({
      url: 'https://hooks.example.com/vigil',
      method: 'PUT',
      headers: { 'X-Team': 'ops' },
    });
    expect(alert.secrets).toEqual({ smtpPassword: 'p', botToken: null });
  });

  it('refuses an invalid body naming its fields', () => {
    expect(() => parseAlertInput({ ...minimal, cooldown_seconds: -1 })).toThrow(InvalidAlertError);
  });
});

describe('send_resolved, resolve_timeout_seconds and grouping', () => {
  it('default to no resolved notice, a 300 s resolve timeout and no grouping', () => {
    expect(alertInputSchema.parse(minimal)).toMatchObject({
      send_resolved: false,
      resolve_timeout_seconds: 300,
      grouping: null,
    });
    // null is "no grouping" as absent is; an empty object is a grouping with every default.
    expect(alertInputSchema.parse({ ...minimal, grouping: null }).grouping).toBeNull();
    expect(parseAlertInput({ ...minimal, grouping: {} }).grouping).toEqual({
      groupBy: [],
      groupWaitSeconds: 30,
      groupIntervalSeconds: 300,
      repeatIntervalSeconds: 14_400,
    });
  });

  it('reads what was written into the model', () => {
    const alert = parseAlertInput({
      ...minimal,
      send_resolved: true,
      resolve_timeout_seconds: 86_400,
      grouping: {
        group_by: ['event_type', 'watchdog', 'asset'],
        group_wait_seconds: 0,
        group_interval_seconds: 1,
        repeat_interval_seconds: 604_800,
      },
    });
    expect(alert).toMatchObject({
      sendResolved: true,
      resolveTimeoutSeconds: 86_400,
      grouping: {
        groupBy: ['event_type', 'watchdog', 'asset'],
        groupWaitSeconds: 0,
        groupIntervalSeconds: 1,
        repeatIntervalSeconds: 604_800,
      },
    });
  });

  it('refuses values out of range, naming each field and its range', () => {
    expect(
      fail({
        ...minimal,
        send_resolved: 'yes',
        resolve_timeout_seconds: 59,
        grouping: {
          group_by: ['asset', 'severity'],
          group_wait_seconds: 3_601,
          group_interval_seconds: 0,
          repeat_interval_seconds: 604_801,
        },
      }),
    ).toEqual([
      { field: 'send_resolved', message: expect.stringMatching(/boolean/) },
      { field: 'resolve_timeout_seconds', message: 'must be 60 to 86400' },
      { field: 'grouping.group_by.1', message: 'expected one of watchdog, asset, event_type' },
      { field: 'grouping.group_wait_seconds', message: 'must be 0 to 3600' },
      { field: 'grouping.group_interval_seconds', message: 'must be 1 to 86400' },
      { field: 'grouping.repeat_interval_seconds', message: 'must be 60 to 604800' },
    ]);
    expect(fail({ ...minimal, resolve_timeout_seconds: 86_401 })).toEqual([
      { field: 'resolve_timeout_seconds', message: 'must be 60 to 86400' },
    ]);
    expect(fail({ ...minimal, resolve_timeout_seconds: 90.5 })[0]?.field).toBe('resolve_timeout_seconds');
    expect(fail({ ...minimal, grouping: { group_by: ['asset', 'asset'] } })).toEqual([
      { field: 'grouping.group_by', message: 'lists a label twice' },
    ]);
    expect(fail({ ...minimal, grouping: { group_by: [], wait: 5 } })[0]?.field).toBe('grouping');
  });

  it('refuses grouping on an alert that is not a watchdog_event alert, with 422 naming grouping', () => {
    for (const trigger of [
      { type: 'price_threshold', symbol: 'AAPL', price_threshold: 200 },
      { type: 'volume_threshold', symbol: 'AAPL', volume_threshold: 1e6 },
      { type: 'custom_condition', condition: 'SCAN [AAPL] WHERE RSI < 30' },
    ]) {
      expect(fail({ ...minimal, trigger, grouping: {} })).toEqual([
        { field: 'grouping', message: 'applies to watchdog_event alerts only' },
      ]);
      const error = (() => {
        try {
          parseAlertInput({ ...minimal, trigger, grouping: { group_by: ['asset'] } });
        } catch (caught) {
          return caught;
        }
      })();
      expect(error).toBeInstanceOf(InvalidAlertError);
      expect((error as InvalidAlertError).message).toBe(
        'invalid alert: grouping: applies to watchdog_event alerts only',
      );
      // Without grouping (or with null) they are fine, and take the resolved-notice settings.
      expect(parseAlertInput({ ...minimal, trigger, grouping: null, send_resolved: true })).toMatchObject({
        sendResolved: true,
        grouping: null,
      });
    }
  });
});
