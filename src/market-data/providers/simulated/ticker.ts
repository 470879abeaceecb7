/**
 * One timer for every stream subscription of a provider: each beat runs every registered task. The
 * timer exists only while at least one task is registered, and is unref'd so that an idle stream
 * never keeps the process alive on its own.
 */
export class Ticker {
  readonly #tasks = new Set<() => void>();
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly intervalMs: number) {}

  add(task: () => void): () => void {
    this.#tasks.add(task);
    if (!this.#timer) {
      this.#timer = setInterval(() => {
        for (const t of [...this.#tasks]) t();
      }, this.intervalMs);
      this.#timer.unref?.();
    }
    return () => {
      this.#tasks.delete(task);
      if (this.#tasks.size === 0) this.#stop();
    };
  }

  get running(): boolean {
    return this.#timer !== undefined;
  }

  close(): void {
    this.#tasks.clear();
    this.#stop();
  }

  #stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
