/**
 * This process's pg-boss workers, per queue, and which of them to wake next. pg-boss polls once
 * per worker and interval; here only the first worker of a queue polls at the queue's interval
 * and the others are woken when there is work (see `Jobs.work`), so an empty queue costs one
 * fetch per interval instead of one per worker.
 */

/**
 * How often the workers of a queue other than its first poll on their own (seconds). They are
 * woken sooner whenever there is work; this only catches what no wake reached.
 */
export const SPARE_POLLING_SECONDS = 30;

/** The polling interval of a queue's `index`-th worker in this process. */
export function pollingSecondsOf(index: number, intervalSeconds: number): number {
  return index === 0 ? intervalSeconds : Math.max(intervalSeconds, SPARE_POLLING_SECONDS);
}

interface Queue {
  readonly ids: string[];
  readonly batchSize: number;
  next: number;
}

export class LocalWorkers {
  readonly #queues = new Map<string, Queue>();

  /** `notify` wakes one worker: it fetches at once, or as soon as its running jobs end. */
  constructor(private readonly notify: (workerId: string) => void) {}

  add(queue: string, workerId: string, batchSize: number): void {
    let known = this.#queues.get(queue);
    if (!known) {
      known = { ids: [], batchSize, next: 0 };
      this.#queues.set(queue, known);
    }
    known.ids.push(workerId);
  }

  /** Wakes enough workers of `queue` to fetch `count` jobs, in turn. */
  wake(queue: string, count: number): void {
    const known = this.#queues.get(queue);
    if (!known || known.ids.length === 0) return;
    const wanted = Math.min(known.ids.length, Math.ceil(count / known.batchSize));
    for (let i = 0; i < wanted; i++) this.notify(this.#take(known));
  }

  /** Wakes the next worker of `queue` other than `self`. */
  wakeAnother(queue: string, self: string): void {
    const known = this.#queues.get(queue);
    if (!known || known.ids.length < 2) return;
    const id = this.#take(known);
    this.notify(id === self ? this.#take(known) : id);
  }

  #take(known: Queue): string {
    const id = known.ids[known.next]!;
    known.next = (known.next + 1) % known.ids.length;
    return id;
  }
}
