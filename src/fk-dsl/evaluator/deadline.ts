import { FkDslDeadlineError } from '../errors.ts';

/** What evaluation needs of a deadline (tests give their own). */
export type EvaluationDeadline = Pick<Deadline, 'check' | 'race'>;

/**
 * When a query's evaluation must stop (FKDSL_DEADLINE_MS after it started). Elapsed time of the
 * process, not the injected market clock: the deadline bounds the work, whatever time it simulates.
 */
export class Deadline {
  readonly #at: number;

  constructor(readonly ms: number) {
    this.#at = performance.now() + ms;
  }

  get passed(): boolean {
    return performance.now() >= this.#at;
  }

  /** Throws FKDSL_DEADLINE_EXCEEDED once the deadline has passed; call it between units of work. */
  check(): void {
    if (this.passed) throw new FkDslDeadlineError(this.ms);
  }

  /**
   * `work`'s result, or the deadline error when time runs out first. The work is not cancelled
   * (market data is shared with other requests and cached), it is no longer waited for.
   */
  async race<T>(work: Promise<T>): Promise<T> {
    this.check();
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new FkDslDeadlineError(this.ms)), this.#at - performance.now());
      timer.unref();
    });
    try {
      return await Promise.race([work, expired]);
    } finally {
      clearTimeout(timer);
    }
  }
}
