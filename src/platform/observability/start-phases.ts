import type { Logger } from './logger.ts';

/**
 * A start, phase by phase. Each phase is logged at info when it ends, with its own duration
 * (`ms`), when it ended (`at_ms`, since the process started) and the CPU the process had used by
 * then (`cpu_ms`, every thread), so a slow start says where its time went. Phases may overlap:
 * the database opens while the code loads.
 */
export class StartPhases {
  readonly #logger: Logger;
  readonly #onChange: ((underWay: readonly string[]) => void) | undefined;
  readonly #underWay: string[] = [];

  /** `onChange` hears what is under way (the `doing` of each running phase) whenever it changes. */
  constructor(logger: Logger, onChange?: (underWay: readonly string[]) => void) {
    this.#logger = logger;
    this.#onChange = onChange;
  }

  /**
   * Runs one phase and logs it when it has ended, as `phase` (what is done then); `doing` says
   * what it does meanwhile (`/readyz` shows it). A failed phase is logged by whoever catches it.
   */
  async time<T>(phase: string, doing: string, run: () => Promise<T> | T): Promise<T> {
    this.#underWay.push(doing);
    this.#onChange?.(this.#underWay);
    const started = performance.now();
    try {
      const value = await run();
      this.#log(phase, performance.now() - started);
      return value;
    } finally {
      this.#underWay.splice(this.#underWay.indexOf(doing), 1);
      this.#onChange?.(this.#underWay);
    }
  }

  /** A phase that began when the process did (loading the entry point, reading the configuration). */
  sinceProcessStart(phase: string): void {
    this.#log(phase, performance.now());
  }

  #log(phase: string, ms: number): void {
    const cpu = process.cpuUsage();
    this.#logger.info(
      {
        phase,
        ms: Math.round(ms),
        at_ms: Math.round(performance.now()),
        cpu_ms: Math.round((cpu.user + cpu.system) / 1000),
      },
      `start: ${phase}`,
    );
  }
}
