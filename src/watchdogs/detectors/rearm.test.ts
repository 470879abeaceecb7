import { describe, expect, it } from 'vitest';
import type { Finding, Severity } from './finding.ts';
import { applyCycle, DEFAULT_REARM_SETTINGS, EMPTY_REARM_STATE, type RearmState } from './rearm.ts';

const f = (
  subject: string,
  severity: Severity = 'high',
  eventType: Finding['eventType'] = 'price_anomaly',
): Finding => ({
  eventType,
  severity,
  symbol: subject,
  subject,
  description: '',
  data: {},
});

/** Runs cycles of one watchdog; returns the subjects emitted per cycle. */
function run(cycles: Finding[][], state: RearmState = EMPTY_REARM_STATE, watchdog = 'price_anomaly') {
  const emitted: string[][] = [];
  for (const findings of cycles) {
    const r = applyCycle(state, watchdog, findings);
    state = r.state;
    emitted.push(r.emit.map((x) => `${x.subject}:${x.severity}`));
  }
  return { emitted, state };
}

describe('applyCycle', () => {
  it('emits on entering the condition and suppresses it while it persists', () => {
    const { emitted } = run([[f('A'), f('B')], [f('A'), f('B')], [f('A')]]);
    expect(emitted).toEqual([['A:high', 'B:high'], [], []]);
  });

  it('re-emits on escalation only, not on a drop and return to the same severity', () => {
    const { emitted } = run([
      [f('A', 'medium')],
      [f('A', 'critical')],
      [f('A', 'high')],
      [f('A', 'critical')],
    ]);
    expect(emitted).toEqual([['A:medium'], ['A:critical'], [], []]);
  });

  it('re-arms after clearCycles consecutive clear cycles, and not before', () => {
    const n = DEFAULT_REARM_SETTINGS.clearCycles;
    const clear = Array.from({ length: n }, () => []);
    expect(run([[f('A')], ...clear.slice(1), [f('A')]]).emitted.at(-1)).toEqual([]);
    expect(run([[f('A')], ...clear, [f('A')]]).emitted.at(-1)).toEqual(['A:high']);
    // A flicker resets the count.
    expect(run([[f('A')], [], [f('A')], ...clear.slice(1), [f('A')]]).emitted.at(-1)).toEqual([]);
  });

  it('keys by event type and watchdog: a crash after an anomaly emits, other watchdogs do not age it', () => {
    const { emitted, state } = run([[f('A', 'high')], [f('A', 'critical', 'flash_crash'), f('A', 'high')]]);
    expect(emitted[1]).toEqual(['A:critical']);
    let s = state;
    for (let i = 0; i < 10; i++) s = applyCycle(s, 'unusual_volume', []).state;
    expect(applyCycle(s, 'price_anomaly', [f('A')]).emit).toEqual([]);
  });

  it('stays within maxEntries, forgetting the least recently seen', () => {
    const settings = { clearCycles: 100, maxEntries: 2 };
    let s = EMPTY_REARM_STATE;
    for (const x of ['A', 'B', 'C']) s = applyCycle(s, 'w', [f(x)], settings).state;
    expect(s.entries).toHaveLength(2);
    expect(applyCycle(s, 'w', [f('A')], settings).emit).toHaveLength(1);
    expect(applyCycle(s, 'w', [f('C')], settings).emit).toHaveLength(0);
  });

  it('does not mutate the state it was given and keeps it JSON-serialisable', () => {
    const first = applyCycle(EMPTY_REARM_STATE, 'w', [f('A')]).state;
    const copy = JSON.parse(JSON.stringify(first)) as RearmState;
    applyCycle(first, 'w', []);
    expect(first).toEqual(copy);
    expect(applyCycle(copy, 'w', [f('A')]).emit).toEqual([]);
  });
});
