import { describe, expect, it } from 'vitest';
import { DEFAULT_WHALE_MOVEMENT_SETTINGS, detectWhaleMovement, type LargeMove } from './detector.ts';

const now = new Date('2026-03-10T12:00:00Z');
let n = 0;
const move = (symbol: string, usdValue: number, minutesAgo = 1, id = `m${++n}`): LargeMove => ({
  id,
  symbol,
  kind: 'trade',
  amount: usdValue / 50_000,
  usdValue,
  time: new Date(now.getTime() - minutesAgo * 60_000),
  from: 'binance',
});

describe('detectWhaleMovement', () => {
  it('groups moves per symbol, graded by the largest, and reports every symbol', () => {
    const findings = detectWhaleMovement({
      now,
      moves: [move('BTC', 2e6), move('BTC', 15e6), move('ETH', 1.5e6), move('SOL', 2e8), move('DOGE', 5e5)],
    });
    expect(findings.map((f) => [f.symbol, f.severity])).toEqual([
      ['BTC', 'high'],
      ['ETH', 'medium'],
      ['SOL', 'critical'],
    ]);
    expect(findings[0]!.data).toMatchObject({ count: 2, totalUsd: 17e6, largestUsd: 15e6 });
    expect(findings[0]!.data.moves.map((m) => m.usdValue)).toEqual([15e6, 2e6]);
  });

  it('does not count a move of exactly $1M, and is medium exactly at $10M', () => {
    const findings = detectWhaleMovement({
      now,
      moves: [move('A', 1e6), move('B', 1e7), move('C', 1e6 + 1)],
    });
    expect(findings.map((f) => [f.symbol, f.severity])).toEqual([
      ['B', 'medium'],
      ['C', 'medium'],
    ]);
  });

  it('considers only moves within the window, and each move once', () => {
    const windowMin = DEFAULT_WHALE_MOVEMENT_SETTINGS.windowMs / 60_000;
    const findings = detectWhaleMovement({
      now,
      moves: [
        move('OLD', 5e6, windowMin + 1),
        move('LATE', 5e6, -1),
        move('A', 5e6, 1, 'x'),
        move('A', 5e6, 1, 'x'),
      ],
    });
    expect(findings.map((f) => [f.symbol, f.data.count])).toEqual([['A', 1]]);
  });

  it('lists at most maxListed moves but counts all of them', () => {
    const moves = Array.from({ length: 8 }, (_, i) => move('A', 2e6 + i));
    const [f] = detectWhaleMovement({ now, moves }, { ...DEFAULT_WHALE_MOVEMENT_SETTINGS, maxListed: 3 });
    expect(f!.data.count).toBe(8);
    expect(f!.data.moves).toHaveLength(3);
  });
});
