import { describe, expect, it } from 'vitest';
import type { AlertTrigger, DeliveryConfigs } from './alert.model.ts';
import { configOfStored, settingsOfStored, storedConfig } from './alert-config.wire.ts';

const configs: DeliveryConfigs = {
  email: { smtpPort: 465, useTls: true, fromEmail: 'vigil@example.com', toEmails: ['ops@example.com'] },
  chat: { chatIds: ['42', '-100'] },
  webhook: { url: 'https://hooks.example.com/x', method: 'POST', headers: { 'X-Team': 'ops' } },
  slack: {},
  discord: {},
  teams: {},
  pagerduty: {},
  alertmanager: { url: 'https://am.example.com/hook' },
};

const triggers: AlertTrigger[] = [
  {
    type: 'watchdog_event',
    eventFilter: { eventTypes: ['flash_crash'], severities: ['high'], assets: ['BTC/USDT'], watchdogs: [] },
  },
  {
    type: 'price_threshold',
    symbol: 'AAPL',
    priceThreshold: 200,
    direction: 'below',
    hysteresisPercent: 0.5,
  },
  { type: 'volume_threshold', symbol: 'AAPL', volumeThreshold: 1e6 },
  { type: 'custom_condition', condition: 'SCAN [AAPL] WHERE RSI < 30', checkIntervalSeconds: 300 },
];

describe('stored alert configuration', () => {
  it('is what the client wrote, in its spelling, without secrets', () => {
    expect(storedConfig(triggers[1]!, configs)).toEqual({
      trigger: {
        type: 'price_threshold',
        symbol: 'AAPL',
        price_threshold: 200,
        direction: 'below',
        hysteresis_percent: 0.5,
      },
      email_config: {
        smtp_port: 465,
        use_tls: true,
        from_email: 'vigil@example.com',
        to_emails: ['ops@example.com'],
      },
      chat_config: { chat_ids: ['42', '-100'] },
      webhook_config: { url: 'https://hooks.example.com/x', method: 'POST', headers: { 'X-Team': 'ops' } },
      slack_config: {},
      discord_config: {},
      teams_config: {},
      pagerduty_config: {},
      alertmanager_config: { url: 'https://am.example.com/hook' },
    });
  });

  it('reads back as it was stored, for every trigger type', () => {
    for (const trigger of triggers) {
      const stored = JSON.parse(JSON.stringify(storedConfig(trigger, configs)));
      expect(configOfStored(stored)).toEqual({ trigger, ...configs });
    }
    const none = {
      email: null,
      chat: null,
      webhook: null,
      slack: null,
      discord: null,
      teams: null,
      alertmanager: null,
      pagerduty: null,
    };
    expect(configOfStored(storedConfig(triggers[0]!, none))).toEqual({ trigger: triggers[0], ...none });
  });

  it('reads a row stored before Slack delivery existed as having no Slack configuration', () => {
    const { slack_config: _, ...old } = storedConfig(triggers[0]!, configs);
    expect(configOfStored(old).slack).toBeNull();
  });
});

describe('stored alert settings', () => {
  const grouping = {
    groupBy: ['asset'] as const,
    groupWaitSeconds: 0,
    groupIntervalSeconds: 60,
    repeatIntervalSeconds: 3_600,
  };

  it('are written only when they differ from their defaults, in the wire spelling', () => {
    const stored = storedConfig(triggers[0]!, {
      ...configs,
      sendResolved: true,
      resolveTimeoutSeconds: 900,
      grouping,
    });
    expect(stored).toMatchObject({
      send_resolved: true,
      resolve_timeout_seconds: 900,
      grouping: {
        group_by: ['asset'],
        group_wait_seconds: 0,
        group_interval_seconds: 60,
        repeat_interval_seconds: 3_600,
      },
    });
    const defaults = storedConfig(triggers[0]!, {
      ...configs,
      sendResolved: false,
      resolveTimeoutSeconds: 300,
      grouping: null,
    });
    expect(defaults).toEqual(storedConfig(triggers[0]!, configs));
    for (const key of ['send_resolved', 'resolve_timeout_seconds', 'grouping'])
      expect(defaults).not.toHaveProperty(key);
  });

  it('read back as they were stored', () => {
    const written = { muteWindows: [], sendResolved: true, resolveTimeoutSeconds: 900, grouping };
    const stored = JSON.parse(JSON.stringify(storedConfig(triggers[0]!, { ...configs, ...written })));
    expect(settingsOfStored(stored)).toEqual(written);
  });

  it('read a row stored before they existed with their defaults', () => {
    const old = storedConfig(triggers[0]!, configs);
    expect(settingsOfStored(old)).toEqual({
      muteWindows: [],
      sendResolved: false,
      resolveTimeoutSeconds: 300,
      grouping: null,
    });
    // A grouping stored without a field (written by an older version) takes that field's default.
    expect(settingsOfStored({ ...old, grouping: { group_by: ['watchdog'] } as never }).grouping).toEqual({
      groupBy: ['watchdog'],
      groupWaitSeconds: 30,
      groupIntervalSeconds: 300,
      repeatIntervalSeconds: 14_400,
    });
  });
});
