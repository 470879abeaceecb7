import { describe, expect, it } from 'vitest';
import { checkedWireAlert } from './alert-input.wire.ts';
import { InvalidAlertError } from './alerts.errors.ts';
import { alertInputOfWire, alertVariables, alertWire, wireOfAlertInput } from './alerts.wire.ts';

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
    const view = alertWire({
      alertId: 'a-1',
      name: 'n',
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
      owner: null,
    });
    expect(view).toEqual({
      alert_id: 'a-1',
      name: 'n',
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
