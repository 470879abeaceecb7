import { describe, expect, it } from 'vitest';
import { parseDashboardMessage } from './dashboard.protocol.ts';

const field = (raw: string) => {
  const parsed = parseDashboardMessage(raw);
  return parsed.ok ? 'accepted' : `${parsed.code}:${parsed.field}`;
};

describe('dashboard stream client messages', () => {
  it('reads ping and a filter in the client spelling', () => {
    expect(parseDashboardMessage('{"type":"ping"}')).toEqual({ ok: true, message: { type: 'ping' } });
    expect(
      parseDashboardMessage('{"type":"filter","filter":{"event_types":["flash_crash"],"symbols":["aapl"]}}'),
    ).toEqual({
      ok: true,
      message: {
        type: 'filter',
        filter: {
          severities: [],
          eventTypes: ['flash_crash'],
          watchdogs: [],
          symbols: ['AAPL'],
          since: undefined,
          until: undefined,
        },
      },
    });
  });

  it('names what is wrong, in the client spelling', () => {
    expect(field('not json')).toBe('BAD_USER_INPUT:message');
    expect(field('[1]')).toBe('BAD_USER_INPUT:message');
    expect(field('{"type":"subscribe"}')).toBe('BAD_USER_INPUT:type');
    expect(field('{"type":"filter","filter":[]}')).toBe('BAD_USER_INPUT:filter');
    expect(field('{"type":"filter","filter":{"severity":["high"]}}')).toBe('BAD_USER_INPUT:filter.severity');
    expect(field('{"type":"filter","filter":{"event_types":["nope"]}}')).toBe(
      'BAD_USER_INPUT:filter.event_types',
    );
    expect(field('{"type":"filter","filter":{"watchdogs":"price_anomaly"}}')).toBe(
      'BAD_USER_INPUT:filter.watchdogs',
    );
    expect(field('{"type":"filter"}')).toBe('accepted');
  });
});
