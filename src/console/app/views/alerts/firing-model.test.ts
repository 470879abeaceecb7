import { describe, expect, it } from 'vitest';
import { actionable, duration, type Episode, type Firing } from './firing-model.ts';

const episode = (id: string, state: Episode['state']): Episode => ({
  id,
  incidentKey: `flash_crash/${id}`,
  state,
  startedAt: '2026-11-28T12:00:00Z',
  lastEventAt: '2026-11-28T12:05:00Z',
  firings: 2,
  durationSeconds: 300,
  acknowledgedAt: null,
  acknowledgedBy: null,
  acknowledgementNote: null,
  resolvedAt: null,
  resolvedReason: null,
  resolvedBy: null,
  resolutionNote: null,
});
const firing = (id: string, ep: Episode | null): Firing => ({
  id,
  status: ep ? 'FIRED' : 'TEST',
  kind: 'EVENT',
  firedAt: '2026-11-28T12:05:00Z',
  silencedBy: null,
  groupKey: null,
  event: { eventId: `e-${id}`, type: 'flash_crash', severity: 'HIGH', description: 'x', asset: null },
  episode: ep,
});

describe("an alert's firings", () => {
  it('offer the episode actions on the newest firing of each open episode only', () => {
    const open = episode('1', 'FIRING');
    const acked = episode('2', 'ACKNOWLEDGED');
    const done = episode('3', 'RESOLVED');
    const rows = [
      firing('f6', open),
      firing('f5', null),
      firing('f4', acked),
      firing('f3', open),
      firing('f2', done),
      firing('f1', acked),
    ];
    expect([...actionable(rows)]).toEqual(['f6', 'f4']);
  });

  it('say how long an episode lasted in its two largest units', () => {
    expect(duration(0)).toBe('0 s');
    expect(duration(42)).toBe('42 s');
    expect(duration(250)).toBe('4 min 10 s');
    expect(duration(2 * 3600 + 5 * 60 + 9)).toBe('2 h 5 min');
    expect(duration(3 * 86_400 + 3600)).toBe('3 d 1 h');
  });
});
