import { describe, expect, it } from 'vitest';
import { DropOldest, LatestByKey, PushIterator, type PushQueue } from './push-iterator.ts';

interface Item {
  readonly key: string;
  readonly n: number;
  readonly first?: boolean;
}

/** An iterator over a feed the test drives: `push` as the feed would, `stopped` counts stops. */
function feed<T>(queue: PushQueue<T>, early: readonly T[] = []) {
  const state = { push: (_item: T) => {}, stopped: 0 };
  const iterator = new PushIterator(queue, (push) => {
    state.push = push;
    for (const item of early) push(item);
    return () => {
      state.stopped++;
    };
  });
  return { iterator, state };
}

async function read<T>(iterator: PushIterator<T>, count: number): Promise<T[]> {
  const items: T[] = [];
  for (let i = 0; i < count; i++) items.push((await iterator.next()).value as T);
  return items;
}

describe('PushIterator', () => {
  it('yields items in order, waiting for the next one, pushed during start included', async () => {
    const { iterator, state } = feed(new DropOldest<string>(10), ['a']);
    expect(await read(iterator, 1)).toEqual(['a']);
    const waiting = iterator.next();
    state.push('b');
    state.push('c');
    expect((await waiting).value).toBe('b');
    expect(await read(iterator, 1)).toEqual(['c']);
    expect(iterator[Symbol.asyncIterator]()).toBe(iterator);
  });

  it('stops the feed once when the reader returns, ending a pending next; later items are ignored', async () => {
    const { iterator, state } = feed(new DropOldest<string>(10));
    const pending = iterator.next();
    expect(iterator.ended).toBe(false);
    await iterator.return();
    await iterator.return();
    expect(await pending).toEqual({ done: true, value: undefined });
    expect(state.stopped).toBe(1);
    expect(iterator.ended).toBe(true);
    state.push('late');
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
  });

  it('throw stops the feed, drops what is queued and rethrows', async () => {
    const { iterator, state } = feed(new DropOldest<string>(10), ['a']);
    await expect(iterator.throw(new Error('reader failed'))).rejects.toThrow('reader failed');
    expect(state.stopped).toBe(1);
    expect((await iterator.next()).done).toBe(true);
  });

  it('offers items to a consumer unless the reader holds one; a declined one and every item after it go to the reader, in order', async () => {
    const { iterator, state } = feed(new DropOldest<string>(10), ['a', 'b']);
    const pushed: string[] = [];
    const batches: string[][] = [];
    let accept: boolean | 'throw' = true;
    // Queued before a consumer came, nothing read yet: offered as it attaches, in one batch.
    iterator.offerTo(
      (item) => {
        if (accept === 'throw') throw new Error('consumer failed');
        if (accept) pushed.push(item);
        return accept;
      },
      (offerAll) => {
        const before = pushed.length;
        offerAll();
        batches.push(pushed.slice(before));
      },
    );
    expect(batches).toEqual([['a', 'b']]);
    state.push('c');
    accept = false;
    state.push('d');
    accept = true;
    // 'd' was declined: 'e' waits behind it for the reader.
    state.push('e');
    expect(pushed).toEqual(['a', 'b', 'c']);
    expect(await read(iterator, 1)).toEqual(['d']);
    // The reader holds 'd' until it asks again: 'f' waits behind 'e'.
    state.push('f');
    expect(await read(iterator, 2)).toEqual(['e', 'f']);
    // Holding 'f', nothing queued: 'g' is not offered either.
    state.push('g');
    expect(pushed).toEqual(['a', 'b', 'c']);
    expect(await read(iterator, 1)).toEqual(['g']);
    // Waiting in next: offered again; a consumer that throws declines.
    const waiting = iterator.next();
    state.push('h');
    accept = 'throw';
    state.push('i');
    expect(pushed).toEqual(['a', 'b', 'c', 'h']);
    expect((await waiting).value).toBe('i');
    expect(batches).toHaveLength(1);
  });

  it('offers queued items up to the first declined one without a batch, and none while the reader holds one', async () => {
    const { iterator, state } = feed(new DropOldest<string>(10), ['a', 'b', 'c']);
    expect(await read(iterator, 1)).toEqual(['a']);
    const pushed: string[] = [];
    iterator.offerTo((item) => {
      pushed.push(item);
      return item !== 'c';
    });
    // The reader holds 'a': nothing queued is offered until it has taken the rest.
    expect(pushed).toEqual([]);
    expect(await read(iterator, 2)).toEqual(['b', 'c']);
    const second = new PushIterator(new DropOldest<string>(10), (push) => {
      for (const item of ['x', 'c', 'y']) push(item);
      return () => {};
    });
    const offered: string[] = [];
    second.offerTo((item) => {
      offered.push(item);
      return item !== 'c';
    });
    expect(offered).toEqual(['x', 'c']);
    expect(await read(second, 2)).toEqual(['c', 'y']);
    state.push('d');
    expect(pushed).toEqual([]);
  });

  it('wakes a waiting reader when the queue was changed from outside', async () => {
    const queue = new DropOldest<string>(10);
    const { iterator } = feed(queue);
    const waiting = iterator.next();
    queue.replaceWith(['stored']);
    iterator.queueChanged();
    expect((await waiting).value).toBe('stored');
  });
});

describe('DropOldest', () => {
  it('keeps at most `limit` items for a slow reader, dropping the oldest', async () => {
    const { iterator, state } = feed(new DropOldest<string>(2));
    for (const item of ['a', 'b', 'c']) state.push(item);
    expect(await read(iterator, 2)).toEqual(['b', 'c']);
  });

  it('takes items put in place of the queue whatever the limit, and a raised limit for those after', () => {
    const queue = new DropOldest<string>(1);
    queue.add('live');
    const live = queue.drain();
    expect(queue.size).toBe(0);
    queue.replaceWith(['s1', 's2', ...live]);
    queue.limit = 3;
    expect(queue.size).toBe(3);
    queue.add('next');
    expect([queue.shift(), queue.shift(), queue.shift(), queue.shift()]).toEqual([
      's2',
      'live',
      'next',
      undefined,
    ]);
  });
});

describe('LatestByKey', () => {
  it('keeps only the latest item per key, keys in the order of their latest item', async () => {
    const { iterator, state } = feed(new LatestByKey<Item>((item) => item.key));
    state.push({ key: 'a', n: 1 });
    state.push({ key: 'b', n: 1 });
    state.push({ key: 'a', n: 2 });
    state.push({ key: 'c', n: 1 });
    expect(await read(iterator, 3)).toEqual([
      { key: 'b', n: 1 },
      { key: 'a', n: 2 },
      { key: 'c', n: 1 },
    ]);
  });

  it('merges an item with the one it replaces', () => {
    const keepFirst = (queued: Item, next: Item): Item =>
      queued.first && !next.first ? { ...next, first: true } : next;
    const queue = new LatestByKey<Item>((item) => item.key, keepFirst);
    queue.add({ key: 'a', n: 1, first: true });
    queue.add({ key: 'a', n: 2 });
    queue.add({ key: 'b', n: 1 });
    queue.add({ key: 'b', n: 2 });
    expect(queue.peek()).toEqual({ key: 'a', n: 2, first: true });
    expect([queue.shift(), queue.shift(), queue.shift()]).toEqual([
      { key: 'a', n: 2, first: true },
      { key: 'b', n: 2 },
      undefined,
    ]);
  });
});
