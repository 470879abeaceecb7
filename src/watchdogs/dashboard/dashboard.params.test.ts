import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../platform/errors.ts';
import { eventParams, listParam, monitorParams, streamParams } from './dashboard.params.ts';

/** Reads a thrown ValidationError as the field it names. */
function refusal(run: () => unknown): string {
  try {
    run();
    return 'accepted';
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    return error.field;
  }
}

describe('query parameters', () => {
  const params = (q: string) => new URLSearchParams(q);

  it('reads repeated and comma-separated values', () => {
    expect(listParam(params('severity=high,critical&severity=low'), 'severity')).toEqual([
      'high',
      'critical',
      'low',
    ]);
    expect(listParam(params(''), 'severity')).toBeUndefined();
  });

  it('turns event parameters into GraphQL variables', () => {
    const { variables } = eventParams(
      params(
        'limit=5&severity=high&event_type=flash_crash&watchdog=price_anomaly&asset=aapl&since=2025-06-11T00:00:00Z',
      ),
    );
    expect(variables).toEqual({
      filter: {
        severities: ['HIGH'],
        eventTypes: ['FLASH_CRASH'],
        watchdogs: ['PRICE_ANOMALY'],
        symbols: ['AAPL'],
        since: '2025-06-11T00:00:00.000Z',
      },
      limit: 5,
      cursor: null,
    });
  });

  it('names the parameter at fault', () => {
    expect(refusal(() => eventParams(params('severity=bogus')))).toBe('severity');
    expect(refusal(() => eventParams(params('event_type=nope')))).toBe('event_type');
    expect(refusal(() => eventParams(params('watchdog=nope')))).toBe('watchdog');
    expect(refusal(() => eventParams(params('limit=0')))).toBe('limit');
    expect(refusal(() => eventParams(params('limit=1001')))).toBe('limit');
    expect(refusal(() => eventParams(params('limit=ten')))).toBe('limit');
    expect(refusal(() => eventParams(params('since=yesterday')))).toBe('since');
    expect(refusal(() => eventParams(params('cursor=abc')))).toBe('cursor');
    expect(refusal(() => eventParams(params('limit=1000')))).toBe('accepted');
  });

  it('reads the stream parameters: a first filter and a replay, neither by default', () => {
    expect(streamParams(params('key=abc'))).toEqual({ filter: undefined, replay: undefined });
    expect(
      streamParams(
        params('last=50&severity=high,critical&event_type=flash_crash&watchdog=price_anomaly&symbol=aapl'),
      ),
    ).toEqual({
      filter: {
        severities: ['high', 'critical'],
        eventTypes: ['flash_crash'],
        watchdogs: ['price_anomaly'],
        symbols: ['AAPL'],
        since: undefined,
        until: undefined,
      },
      replay: { last: 50, afterId: undefined, since: undefined },
    });
    expect(streamParams(params('since=01JXP3YV8Q0000000000000000')).replay).toEqual({
      last: 1000,
      afterId: '01JXP3YV8Q0000000000000000',
      since: undefined,
    });
    expect(streamParams(params('since=2025-06-11T15:00:00Z&last=5')).replay).toEqual({
      last: 5,
      afterId: undefined,
      since: new Date('2025-06-11T15:00:00Z'),
    });
  });

  it('names the stream parameter at fault', () => {
    expect(refusal(() => streamParams(params('last=0')))).toBe('last');
    expect(refusal(() => streamParams(params('last=1001')))).toBe('last');
    expect(refusal(() => streamParams(params('last=many')))).toBe('last');
    expect(refusal(() => streamParams(params('last=')))).toBe('last');
    expect(refusal(() => streamParams(params('since=yesterday')))).toBe('since');
    expect(refusal(() => streamParams(params('since=')))).toBe('since');
    expect(refusal(() => streamParams(params('severity=urgent&last=5')))).toBe('severity');
    expect(refusal(() => streamParams(params('event_types=nope')))).toBe('event_type');
    expect(refusal(() => streamParams(params('last=1000&since=2025-06-11')))).toBe('accepted');
  });

  it('reads the monitor parameters, refusing a missing, empty or too long symbol list', () => {
    const classes = ['equity', 'crypto'];
    expect(monitorParams(params('symbols=AAPL,%20BTC&asset_type=Equity&market=US'), classes, 3)).toEqual({
      symbols: ['AAPL', 'BTC'],
      asset_type: 'EQUITY',
      market: 'US',
    });
    expect(refusal(() => monitorParams(params(''), classes, 3))).toBe('symbols');
    expect(refusal(() => monitorParams(params('symbols=,'), classes, 3))).toBe('symbols');
    expect(refusal(() => monitorParams(params('symbols=A,B,C,D'), classes, 3))).toBe('symbols');
    expect(refusal(() => monitorParams(params('symbols=A&asset_type=bond'), classes, 3))).toBe('asset_type');
  });
});
