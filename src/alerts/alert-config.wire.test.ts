import { describe, expect, it } from 'vitest';
import type { AlertTrigger, DeliveryConfigs } from './alert.model.ts';
import { configOfStored, storedConfig } from './alert-config.wire.ts';

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
