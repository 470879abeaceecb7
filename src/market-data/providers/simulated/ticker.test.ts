import { afterEach, describe, expect, it, vi } from 'vitest';
import { Ticker } from './ticker.ts';

describe('shared ticker', () => {
  afterEach(() => vi.useRealTimers());

  it('runs every task on one timer that exists only while tasks do', () => {
    vi.useFakeTimers();
    const ticker = new Ticker(100);
    const seen: string[] = [];
    const stopA = ticker.add(() => seen.push('a'));
    const stopB = ticker.add(() => seen.push('b'));
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(250);
    expect(seen).toEqual(['a', 'b', 'a', 'b']);
    stopA();
    vi.advanceTimersByTime(100);
    expect(seen.slice(4)).toEqual(['b']);
    stopB();
    expect(ticker.running).toBe(false);
    expect(vi.getTimerCount()).toBe(0);
    ticker.add(() => seen.push('c'));
    expect(ticker.running).toBe(true);
    ticker.close();
    expect(vi.getTimerCount()).toBe(0);
  });
});
