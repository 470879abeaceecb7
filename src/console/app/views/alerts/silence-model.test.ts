import { describe, expect, it } from 'vitest';
import { clientErrors, serverErrors } from './form-errors.ts';
import { labelOf } from './form-labels.ts';
import { emptyForm, toInput } from './form-model.ts';
import {
  emptySilence,
  matchersSummary,
  silenceChecks,
  silenceServerErrors,
  toSilenceInput,
} from './silence-model.ts';

const NOW = new Date('2026-11-28T12:00:00Z');

describe('the silence form', () => {
  it('turns a duration from now into endsAt, and leaves startsAt out (the API reads it as now)', () => {
    const input = toSilenceInput(
      {
        ...emptySilence(),
        assets: 'AAPL, btc/usdt',
        alertIds: 'a1\na2',
        duration: '90',
        unit: 'MINUTES',
        comment: ' deploy ',
      },
      NOW,
    );
    expect(input).toEqual({
      matchers: {
        eventTypes: [],
        severities: [],
        watchdogs: [],
        assets: ['AAPL', 'btc/usdt'],
        alertIds: ['a1', 'a2'],
      },
      endsAt: '2026-11-28T13:30:00.000Z',
      comment: 'deploy',
    });
  });

  it('counts a duration from the start when one is given, and sends an end time as typed', () => {
    const start = new Date('2026-12-01T09:00');
    const byDuration = toSilenceInput(
      { ...emptySilence(), startsAt: '2026-12-01T09:00', duration: '2', unit: 'DAYS' },
      NOW,
    );
    expect(byDuration.startsAt).toBe(start.toISOString());
    expect(byDuration.endsAt).toBe(new Date(start.getTime() + 2 * 86_400_000).toISOString());
    const byTime = toSilenceInput({ ...emptySilence(), endBy: 'TIME', endsAt: '2026-12-02T17:30' }, NOW);
    expect(byTime.endsAt).toBe(new Date('2026-12-02T17:30').toISOString());
  });

  it('asks for a comment, a positive duration or an end time before asking the API', () => {
    expect(silenceChecks({ ...emptySilence(), duration: '0' })).toEqual({
      duration: expect.any(String),
      comment: expect.any(String),
    });
    expect(silenceChecks({ ...emptySilence(), endBy: 'TIME', comment: 'x' })).toEqual({
      ends_at: expect.any(String),
    });
    expect(silenceChecks({ ...emptySilence(), comment: 'x' })).toEqual({});
  });

  it("puts the API's errors on the fields typed: list items on their list, ends_at on the duration when given as one", () => {
    const error = {
      message: 'invalid silence: ends_at: a silence lasts at most 366 days',
      fields: { ends_at: 'a silence lasts at most 366 days', 'matchers.alert_ids.1': 'must be an alert id' },
    };
    expect(silenceServerErrors(error, emptySilence())).toEqual({
      duration: 'a silence lasts at most 366 days',
      'matchers.alert_ids': 'must be an alert id',
    });
    expect(silenceServerErrors(error, { ...emptySilence(), endBy: 'TIME' })).toMatchObject({
      ends_at: 'a silence lasts at most 366 days',
    });
    const coerced = {
      message: 'Variable "$input" got invalid value "x" at "input.startsAt"; Expected a date-time',
      fields: {},
    };
    expect(silenceServerErrors(coerced, emptySilence())).toEqual({ starts_at: 'Expected a date-time' });
  });

  it('says what a silence holds in one line', () => {
    const none = { eventTypes: [], severities: [], assets: [], watchdogs: [], alertIds: [] };
    expect(matchersSummary(none)).toBe('every firing of your alerts');
    expect(
      matchersSummary({ ...none, eventTypes: ['FLASH_CRASH'], severities: ['HIGH'], alertIds: ['a1'] }),
    ).toBe('flash crash; severity high; alerts a1');
  });
});

describe('the alert form: mute windows and the channels with one URL or key', () => {
  const base = { ...emptyForm(), alertId: 'a1', name: 'A' };

  it('sends mute windows and only the checked channels, secrets left out when kept', () => {
    const input = toInput({
      ...base,
      methods: { ...base.methods, SLACK: true, ALERTMANAGER: true, PAGERDUTY: true },
      slackUrl: { value: 'https://hooks.slack.com/services/T/B/x', remove: false, stored: false },
      alertmanagerUrl: ' http://am.example/hook ',
      routingKey: { value: '', remove: false, stored: true },
      discordUrl: { value: 'https://discord.com/api/webhooks/1/x', remove: false, stored: false },
      muteWindows: [{ days: ['SAT', 'SUN'], start: '18:00', end: ' 08:00', timeZone: 'America/New_York ' }],
    });
    expect(input).toMatchObject({
      deliveryMethods: ['SLACK', 'ALERTMANAGER', 'PAGERDUTY'],
      slackConfig: { webhookUrl: 'https://hooks.slack.com/services/T/B/x' },
      alertmanagerConfig: { url: 'http://am.example/hook' },
      pagerdutyConfig: {},
      muteWindows: [{ days: ['SAT', 'SUN'], start: '18:00', end: '08:00', timeZone: 'America/New_York' }],
    });
    expect(input).not.toHaveProperty('discordConfig');
  });

  it('asks for a channel URL or key unless one is stored and kept, and for each window its times and zone', () => {
    const errors = clientErrors(
      {
        ...base,
        methods: { ...base.methods, TEAMS: true, PAGERDUTY: true },
        routingKey: { value: '', remove: true, stored: true },
        muteWindows: [{ days: [], start: '', end: '08:00', timeZone: '' }],
      },
      true,
    );
    expect(Object.keys(errors).sort()).toEqual([
      'mute_windows.0.start',
      'mute_windows.0.time_zone',
      'pagerduty_config.routing_key',
      'teams_config.webhook_url',
    ]);
  });

  it("puts the API's errors on a window's field, and names it in the summary", () => {
    const s = {
      ...base,
      muteWindows: [{ days: ['MON'], start: '09:00', end: '17:00', timeZone: 'Mars/Base' }],
    };
    const found = serverErrors(
      {
        message: 'invalid alert',
        fields: { 'mute_windows.0.time_zone': 'unknown time zone', 'mute_windows.0.days.0': 'bad' },
      },
      s,
    );
    expect(found).toEqual({ 'mute_windows.0.time_zone': 'unknown time zone', 'mute_windows.0.days': 'bad' });
    expect(labelOf('mute_windows.0.time_zone')).toBe('Mute window 1 time zone');
    expect(labelOf('slack_config.webhook_url')).toBe('Slack webhook URL');
  });
});
