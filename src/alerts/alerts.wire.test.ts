import { describe, expect, it } from 'vitest';
import { enumName, fromEnumName } from '../platform/graphql/enum-values.ts';
import { GROUP_LABELS } from './alert.model.ts';
import { settingsOfStored, storedConfig } from './alert-config.wire.ts';
import { checkedWireAlert, parseAlertInput } from './alert-input.wire.ts';
import type { AlertData } from './alerts.documents.ts';
import { InvalidAlertError } from './alerts.errors.ts';
import {
  alertInputOfWire,
  alertVariables,
  alertWire,
  attemptWire,
  testSendWire,
  wireOfAlertInput,
} from './alerts.wire.ts';

const wire = {
  alert_id: 'a-1',
  name: 'Whales',
  trigger: {
    type: 'watchdog_event',
    event_filter: {
      event_types: ['funding_spike'],
      severities: ['high'],
      assets: ['BTC'],
      watchdogs: ['funding_rate'],
    },
  },
  delivery_methods: ['email', 'webhook'],
  email_config: { to_emails: ['ops@example.com'], smtp_password: null, use_tls: false },
  webhook_config: { url: 'https://hooks.example.com/x', headers: { 'X-Team': 'ops' }, auth_token: 'tok' },
  cooldown_seconds: 30,
  mute_windows: [{ days: ['sat', 'sun'], start: '00:00', end: '00:00', time_zone: 'America/New_York' }],
  send_resolved: true,
  resolve_timeout_seconds: 600,
  grouping: { group_by: ['watchdog', 'event_type'], group_wait_seconds: 0 },
};

/** An answered alert with nothing configured, for the tests that vary a few fields. */
const sampleData: AlertData = {
  alertId: 'a-1',
  name: 'n',
  description: '',
  enabled: true,
  trigger: {
    type: 'WATCHDOG_EVENT',
    eventFilter: { eventTypes: [], severities: [], assets: [], watchdogs: [] },
    symbol: null,
    priceThreshold: null,
    direction: null,
    hysteresisPercent: null,
    volumeThreshold: null,
    condition: null,
    checkIntervalSeconds: null,
  },
  deliveryMethods: [],
  emailConfig: null,
  chatConfig: null,
  webhookConfig: null,
  slackConfig: null,
  discordConfig: null,
  teamsConfig: null,
  alertmanagerConfig: null,
  pagerdutyConfig: null,
  cooldownSeconds: 60,
  muteWindows: [],
  sendResolved: false,
  resolveTimeoutSeconds: 300,
  grouping: null,
  createdAt: '2025-06-11T15:00:00.000Z',
  updatedAt: '2025-06-11T15:00:00.000Z',
  lastTriggered: null,
  triggerCount: 0,
  owner: null,
};

describe('alert wire <-> GraphQL', () => {
  it('spells the wire alert as GraphQL variables: camelCase keys, UPPER_CASE enums, header lists', () => {
    expect(alertInputOfWire(wire)).toEqual({
      alertId: 'a-1',
      name: 'Whales',
      trigger: {
        type: 'WATCHDOG_EVENT',
        eventFilter: {
          eventTypes: ['FUNDING_SPIKE'],
          severities: ['HIGH'],
          assets: ['BTC'],
          watchdogs: ['FUNDING_RATE'],
        },
      },
      deliveryMethods: ['EMAIL', 'WEBHOOK'],
      emailConfig: { toEmails: ['ops@example.com'], smtpPassword: null, useTls: false },
      webhookConfig: {
        url: 'https://hooks.example.com/x',
        headers: [{ name: 'X-Team', value: 'ops' }],
        authToken: 'tok',
      },
      cooldownSeconds: 30,
      muteWindows: [{ days: ['SAT', 'SUN'], start: '00:00', end: '00:00', timeZone: 'America/New_York' }],
      sendResolved: true,
      resolveTimeoutSeconds: 600,
      grouping: { groupBy: ['WATCHDOG', 'EVENT_TYPE'], groupWaitSeconds: 0 },
    });
    // The documents name their variables as the wire does; only nested values are GraphQL's.
    expect(Object.keys(alertVariables(wire)).sort()).toEqual(Object.keys(wire).sort());
  });

  it('keeps absent secrets absent and null ones null on the way back', () => {
    const back = wireOfAlertInput({
      alertId: 'a-1',
      trigger: { type: 'price_threshold', symbol: 'AAPL', priceThreshold: 200, direction: 'below' },
      emailConfig: { toEmails: ['ops@example.com'], smtpPassword: null },
      chatConfig: { chatIds: ['1'] },
      webhookConfig: { url: 'https://h.example.com', headers: [{ name: 'X-A', value: '1' }] },
    });
    expect(back).toEqual({
      alert_id: 'a-1',
      trigger: { type: 'price_threshold', symbol: 'AAPL', price_threshold: 200, direction: 'below' },
      email_config: { to_emails: ['ops@example.com'], smtp_password: null },
      chat_config: { chat_ids: ['1'] },
      webhook_config: { url: 'https://h.example.com', headers: { 'X-A': '1' } },
    });
    expect('bot_token' in (back.chat_config as object)).toBe(false);
  });

  it('carries send_resolved, resolve_timeout_seconds and grouping from a REST body to the store and back out', () => {
    const body = {
      ...wire,
      grouping: { group_by: ['asset', 'event_type'], group_interval_seconds: 60 },
    };
    // REST checks the body, then runs the document with these variables (labels by GraphQL name).
    const variables = alertVariables(checkedWireAlert(body));
    expect(variables).toMatchObject({
      send_resolved: true,
      resolve_timeout_seconds: 600,
      grouping: {
        groupBy: ['ASSET', 'EVENT_TYPE'],
        groupWaitSeconds: 30,
        groupIntervalSeconds: 60,
        repeatIntervalSeconds: 14_400,
      },
    });
    // GraphQL hands the resolver those variables with enum values in their internal spelling.
    const fromLabel = fromEnumName(GROUP_LABELS);
    const given = variables.grouping as { groupBy: string[] } & Record<string, unknown>;
    const definition = parseAlertInput(
      wireOfAlertInput({
        alertId: 'a-1',
        name: 'n',
        trigger: { type: 'watchdog_event' },
        deliveryMethods: ['webhook'],
        webhookConfig: { url: 'https://hooks.example.com/x' },
        sendResolved: variables.send_resolved,
        resolveTimeoutSeconds: variables.resolve_timeout_seconds,
        grouping: { ...given, groupBy: given.groupBy.map(fromLabel) },
      }),
    );
    const stored = JSON.parse(JSON.stringify(storedConfig(definition.trigger, definition)));
    const settings = settingsOfStored(stored);
    expect(settings).toMatchObject({
      sendResolved: true,
      resolveTimeoutSeconds: 600,
      grouping: {
        groupBy: ['asset', 'event_type'],
        groupWaitSeconds: 30,
        groupIntervalSeconds: 60,
        repeatIntervalSeconds: 14_400,
      },
    });
    // GraphQL answers the labels by name; the wire answer is what was written, defaults filled in.
    const answered = settings.grouping && {
      ...settings.grouping,
      groupBy: settings.grouping.groupBy.map(enumName),
    };
    const view = alertWire({ ...sampleData, ...settings, grouping: answered });
    expect(view).toMatchObject({
      send_resolved: true,
      resolve_timeout_seconds: 600,
      grouping: {
        group_by: ['asset', 'event_type'],
        group_wait_seconds: 30,
        group_interval_seconds: 60,
        repeat_interval_seconds: 14_400,
      },
    });
    // An explicit null (no grouping) stays null both ways, so a replace can clear it.
    expect(alertInputOfWire({ grouping: null })).toEqual({ grouping: null });
    expect(wireOfAlertInput({ grouping: null })).toEqual({ grouping: null });
  });

  it('refuses a header named twice, whatever its case', () => {
    expect(() =>
      wireOfAlertInput({
        webhookConfig: {
          url: 'https://h.example.com',
          headers: [
            { name: 'X-A', value: '1' },
            { name: 'x-a', value: '2' },
          ],
        },
      }),
    ).toThrow(/webhook_config\.headers\.x-a: is given twice/);
  });

  it('maps GraphQL data back to the wire view, dropping other trigger types’ fields', () => {
    const times = { createdAt: '2025-06-11T15:00:00.000Z', updatedAt: '2025-06-11T15:01:00.000Z' };
    const view = alertWire({
      alertId: 'a-1',
      name: 'n',
      description: '',
      enabled: true,
      trigger: {
        type: 'PRICE_THRESHOLD',
        eventFilter: null,
        symbol: 'AAPL',
        priceThreshold: 200,
        direction: 'ABOVE',
        hysteresisPercent: 0.5,
        volumeThreshold: null,
        condition: null,
        checkIntervalSeconds: null,
      },
      deliveryMethods: ['CHAT'],
      emailConfig: null,
      chatConfig: { chatIds: ['1'], hasBotToken: true },
      webhookConfig: null,
      slackConfig: null,
      discordConfig: null,
      teamsConfig: null,
      alertmanagerConfig: null,
      pagerdutyConfig: null,
      cooldownSeconds: 60,
      muteWindows: [{ days: ['MON'], start: '16:00', end: '09:30', timeZone: 'America/New_York' }],
      sendResolved: false,
      resolveTimeoutSeconds: 300,
      grouping: null,
      ...times,
      lastTriggered: null,
      triggerCount: 0,
      owner: null,
    });
    expect(view).toEqual({
      alert_id: 'a-1',
      name: 'n',
      description: '',
      enabled: true,
      trigger: {
        type: 'price_threshold',
        symbol: 'AAPL',
        price_threshold: 200,
        direction: 'above',
        hysteresis_percent: 0.5,
      },
      delivery_methods: ['chat'],
      email_config: null,
      chat_config: { chat_ids: ['1'], has_bot_token: true },
      webhook_config: null,
      slack_config: null,
      discord_config: null,
      teams_config: null,
      alertmanager_config: null,
      pagerduty_config: null,
      cooldown_seconds: 60,
      mute_windows: [{ days: ['mon'], start: '16:00', end: '09:30', time_zone: 'America/New_York' }],
      send_resolved: false,
      resolve_timeout_seconds: 300,
      grouping: null,
      created_at: '2025-06-11T15:00:00.000Z',
      updated_at: '2025-06-11T15:01:00.000Z',
      last_triggered: null,
      trigger_count: 0,
    });
    // The wire's key order is the selection's (answers are compared as text by some clients).
    expect(Object.keys(view)).toEqual([
      'alert_id',
      'name',
      'description',
      'enabled',
      'trigger',
      'delivery_methods',
      'email_config',
      'chat_config',
      'webhook_config',
      'slack_config',
      'discord_config',
      'teams_config',
      'alertmanager_config',
      'pagerduty_config',
      'cooldown_seconds',
      'mute_windows',
      'send_resolved',
      'resolve_timeout_seconds',
      'grouping',
      'created_at',
      'updated_at',
      'last_triggered',
      'trigger_count',
    ]);
  });

  it('maps an event filter, every configuration, and the owner an admin sees', () => {
    const view = alertWire({
      alertId: 'a-2',
      name: 'n',
      description: 'd',
      enabled: false,
      trigger: {
        type: 'WATCHDOG_EVENT',
        eventFilter: {
          eventTypes: ['FUNDING_SPIKE'],
          severities: ['HIGH'],
          assets: ['BTC'],
          watchdogs: ['FUNDING_RATE'],
        },
        symbol: null,
        priceThreshold: null,
        direction: null,
        hysteresisPercent: null,
        volumeThreshold: null,
        condition: null,
        checkIntervalSeconds: null,
      },
      deliveryMethods: ['EMAIL', 'WEBHOOK'],
      emailConfig: {
        smtpHost: null,
        smtpPort: 465,
        smtpUser: null,
        hasPassword: false,
        useTls: true,
        fromEmail: null,
        toEmails: ['ops@example.com'],
      },
      chatConfig: null,
      webhookConfig: {
        url: 'https://hooks.example.com/x',
        method: 'PUT',
        headers: [{ name: 'X-Team', value: 'ops' }],
        hasAuthToken: true,
        hasSigningSecret: false,
      },
      slackConfig: { hasWebhookUrl: true },
      discordConfig: { hasWebhookUrl: false },
      teamsConfig: null,
      alertmanagerConfig: { url: 'https://am.example.com/hook' },
      pagerdutyConfig: null,
      cooldownSeconds: 0,
      muteWindows: [],
      sendResolved: true,
      resolveTimeoutSeconds: 3_600,
      grouping: {
        groupBy: ['ASSET', 'EVENT_TYPE'],
        groupWaitSeconds: 30,
        groupIntervalSeconds: 300,
        repeatIntervalSeconds: 14_400,
      },
      createdAt: '2025-06-11T15:00:00.000Z',
      updatedAt: '2025-06-11T15:00:00.000Z',
      lastTriggered: '2025-06-11T16:00:00.000Z',
      triggerCount: 3,
      owner: 'k2',
    });
    expect(view).toMatchObject({
      trigger: {
        type: 'watchdog_event',
        event_filter: {
          event_types: ['funding_spike'],
          severities: ['high'],
          assets: ['BTC'],
          watchdogs: ['funding_rate'],
        },
      },
      delivery_methods: ['email', 'webhook'],
      email_config: {
        smtp_host: null,
        smtp_port: 465,
        smtp_user: null,
        has_password: false,
        use_tls: true,
        from_email: null,
        to_emails: ['ops@example.com'],
      },
      webhook_config: {
        url: 'https://hooks.example.com/x',
        method: 'PUT',
        headers: { 'X-Team': 'ops' },
        has_auth_token: true,
        has_signing_secret: false,
      },
      slack_config: { has_webhook_url: true },
      discord_config: { has_webhook_url: false },
      send_resolved: true,
      resolve_timeout_seconds: 3_600,
      grouping: {
        group_by: ['asset', 'event_type'],
        group_wait_seconds: 30,
        group_interval_seconds: 300,
        repeat_interval_seconds: 14_400,
      },
      owner: 'k2',
    });
    expect(Object.keys(view.trigger)).toEqual(['type', 'event_filter']);
    expect(Object.keys(view).at(-1)).toBe('owner');
  });

  it('maps attempts and test-sends to the wire, enum values in lower case', () => {
    const attempt = {
      deliveryId: 'd-1',
      attempt: 2,
      method: 'WEBHOOK',
      target: 'https://hooks.example.com/x',
      event: { eventId: 'ev-1', type: 'flash_crash', watchdog: 'PRICE_ANOMALY' },
      status: 'RETRY',
      responseCode: 503,
      latencyMs: 12,
      error: 'HTTP 503',
      attemptedAt: '2025-06-11T15:00:00.000Z',
    };
    expect(attemptWire(attempt)).toEqual({
      delivery_id: 'd-1',
      attempt: 2,
      method: 'webhook',
      target: 'https://hooks.example.com/x',
      event: { event_id: 'ev-1', type: 'flash_crash', watchdog: 'price_anomaly' },
      status: 'retry',
      response_code: 503,
      latency_ms: 12,
      error: 'HTTP 503',
      attempted_at: '2025-06-11T15:00:00.000Z',
    });
    const { attempt: _a, attemptedAt: _t, event: _e, ...result } = attempt;
    expect(
      testSendWire({ alertId: 'a-1', results: [{ ...result, status: 'DELIVERED', error: null }] }),
    ).toEqual({
      alert_id: 'a-1',
      results: [
        {
          method: 'webhook',
          target: 'https://hooks.example.com/x',
          delivery_id: 'd-1',
          status: 'delivered',
          response_code: 503,
          latency_ms: 12,
          error: null,
        },
      ],
    });
  });

  it('checks a wire alert with the store schema, naming snake_case fields', () => {
    const bad = { ...wire, cooldown_seconds: 'soon', email_config: { to_emails: ['nobody'] } };
    let caught: unknown;
    try {
      checkedWireAlert(bad);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(InvalidAlertError);
    const { issues } = (caught as InvalidAlertError).details as { issues: { field: string }[] };
    const fields = issues.map((i) => i.field);
    expect(fields).toEqual(expect.arrayContaining(['cooldown_seconds', 'email_config.to_emails.0']));
  });
});
