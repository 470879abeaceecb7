import { describe, expect, it } from 'vitest';
import { parseAlertInput } from './alert-input.wire.ts';
import {
  clockTimeProblem,
  inMuteWindow,
  type MuteWindow,
  mutingWindow,
  timeZoneProblem,
} from './mute-window.ts';

const NY = 'America/New_York';
const afterHours: MuteWindow = {
  days: ['mon', 'tue', 'wed', 'thu', 'fri'],
  start: '16:00',
  end: '09:30',
  timeZone: NY,
};
const lunch: MuteWindow = { days: ['mon'], start: '12:00', end: '13:00', timeZone: 'Europe/London' };

describe('inMuteWindow', () => {
  it.each([
    // [window, instant (UTC), inside]
    ['same-day window, inside', lunch, '2026-01-05T12:30:00Z', true],
    ['same-day window, at its start', lunch, '2026-01-05T12:00:00Z', true],
    ['same-day window, at its end (exclusive)', lunch, '2026-01-05T13:00:00Z', false],
    ['same-day window, another day', lunch, '2026-01-06T12:30:00Z', false],
    // London is UTC+1 in summer: 12:30 local is 11:30 UTC.
    ['same-day window in British summer time', lunch, '2026-07-06T11:30:00Z', true],
    ['same-day window in summer, an hour late in UTC terms', lunch, '2026-07-06T12:30:00Z', false],
    // New York in winter is UTC-5: Monday 16:00 local is 21:00 UTC.
    ['crossing midnight, the evening part', afterHours, '2026-01-05T21:00:00Z', true],
    ['crossing midnight, a minute before it starts', afterHours, '2026-01-05T20:59:00Z', false],
    ['crossing midnight, the morning after (Tue 09:29 local)', afterHours, '2026-01-06T14:29:00Z', true],
    ['crossing midnight, market open (Tue 09:30 local)', afterHours, '2026-01-06T14:30:00Z', false],
    ['crossing midnight, Saturday morning after Friday', afterHours, '2026-01-10T14:00:00Z', true],
    [
      'crossing midnight, Saturday evening: no window starts on Saturday',
      afterHours,
      '2026-01-10T22:00:00Z',
      false,
    ],
    [
      'crossing midnight, Monday morning: no window started on Sunday',
      afterHours,
      '2026-01-05T14:00:00Z',
      false,
    ],
    // DST begins in New York on 2026-03-08: 16:00 local is 20:00 UTC from then on.
    ['after the DST change, 16:00 local is 20:00 UTC', afterHours, '2026-03-09T20:00:00Z', true],
    ['after the DST change, 15:59 local', afterHours, '2026-03-09T19:59:00Z', false],
    ['before the DST change, 20:00 UTC is 15:00 local', afterHours, '2026-03-06T20:00:00Z', false],
    ['every day (no days listed)', { ...lunch, days: [] }, '2026-01-10T12:15:00Z', true],
  ] as const)('%s', (_name, window, at, inside) => {
    expect(inMuteWindow(window, new Date(at))).toBe(inside);
  });

  it('names the first window that holds', () => {
    expect(mutingWindow([lunch, afterHours], new Date('2026-01-05T21:00:00Z'))).toBe(1);
    expect(mutingWindow([lunch, afterHours], new Date('2026-01-06T15:00:00Z'))).toBe(-1);
  });

  it('checks times and zones', () => {
    expect(clockTimeProblem('09:30')).toBeNull();
    expect(clockTimeProblem('24:00')).toMatch(/HH:MM/);
    expect(clockTimeProblem('9:30')).toMatch(/HH:MM/);
    expect(timeZoneProblem('America/New_York')).toBeNull();
    expect(timeZoneProblem('Mars/Olympus')).toMatch(/IANA/);
  });
});

describe('mute_windows as an alert writes them', () => {
  const alert = (mute_windows: unknown) => ({
    alert_id: 'a',
    name: 'a',
    trigger: { type: 'watchdog_event' },
    delivery_methods: ['webhook'],
    webhook_config: { url: 'https://hooks.example.com/x' },
    mute_windows,
  });

  it('reads them into the model', () => {
    const window = { days: ['fri'], start: '16:00', end: '09:30', time_zone: 'America/New_York' };
    expect(parseAlertInput(alert([window])).muteWindows).toEqual([
      { days: ['fri'], start: '16:00', end: '09:30', timeZone: 'America/New_York' },
    ]);
  });

  it.each([
    [{ days: ['fri'], start: '4pm', end: '09:30', time_zone: 'UTC' }, 'mute_windows.0.start'],
    [{ days: ['fri'], start: '16:00', end: '24:00', time_zone: 'UTC' }, 'mute_windows.0.end'],
    [{ days: ['friday'], start: '16:00', end: '09:30', time_zone: 'UTC' }, 'mute_windows.0.days.0'],
    [{ days: ['fri', 'fri'], start: '16:00', end: '09:30', time_zone: 'UTC' }, 'mute_windows.0.days'],
    [{ start: '16:00', end: '09:30', time_zone: 'Mars/Olympus' }, 'mute_windows.0.time_zone'],
    [{ start: '16:00', end: '09:30' }, 'mute_windows.0.time_zone'],
  ])('refuses %j naming %s', (window, field) => {
    expect(() => parseAlertInput(alert([window]))).toThrow(new RegExp(field.replaceAll('.', '\\.')));
  });
});
