import { describe, expect, it } from 'vitest';
import { LocalWorkers, pollingSecondsOf, SPARE_POLLING_SECONDS } from './local-workers.ts';

function workers(batchSize = 1, ids = ['a', 'b', 'c']) {
  const woken: string[] = [];
  const local = new LocalWorkers((id) => woken.push(id));
  for (const id of ids) local.add('q', id, batchSize);
  return { local, woken };
}

describe('local workers', () => {
  it('polls often with the first worker of a queue only', () => {
    expect(pollingSecondsOf(0, 1)).toBe(1);
    expect(pollingSecondsOf(1, 1)).toBe(SPARE_POLLING_SECONDS);
    expect(pollingSecondsOf(3, 120)).toBe(120);
  });

  it('wakes as many workers as the jobs need, in turn, never more than there are', () => {
    const { local, woken } = workers(4);
    local.wake('q', 5);
    expect(woken).toEqual(['a', 'b']);
    local.wake('q', 100);
    expect(woken).toEqual(['a', 'b', 'c', 'a', 'b']);
    local.wake('other', 3);
    expect(woken).toHaveLength(5);
  });

  it('wakes another worker than the one asking', () => {
    const { local, woken } = workers();
    local.wakeAnother('q', 'b');
    local.wakeAnother('q', 'b');
    expect(woken).toEqual(['a', 'c']);
    const single = workers(1, ['only']);
    single.local.wakeAnother('q', 'only');
    expect(single.woken).toEqual([]);
  });
});
