import type { AppDeps } from './deps.ts';
import type { ModuleDefinition } from './platform/module.ts';
import type { Logger } from './platform/observability/logger.ts';

/**
 * The modules' share of the app's lifecycle, in the order that keeps a start short: before the app
 * is ready only what serving needs (the job engine, every queue, each module's `start`), after it
 * the warm-up (job workers and schedules, each module's `warmUp`), and at the stop each module's
 * `stop` and `release` in reverse order, only for the modules that started.
 */
export class ModuleLifecycle {
  readonly #deps: AppDeps;
  readonly #modules: readonly ModuleDefinition<AppDeps>[];
  readonly #logger: Logger;
  #started: ModuleDefinition<AppDeps>[] = [];

  constructor(deps: AppDeps, modules: readonly ModuleDefinition<AppDeps>[], logger: Logger) {
    this.#deps = deps;
    this.#modules = modules;
    this.#logger = logger;
  }

  /** `goOn` throws when the start must give up (a stop arrived); it is asked before every step. */
  async start(goOn: () => void): Promise<void> {
    const deps = this.#deps;
    await deps.jobs.start();
    goOn();
    // A job may be sent in a transaction from the first request on: its queue must exist.
    await deps.jobs.ensureQueues(this.#modules.flatMap((m) => (m.jobs ?? []).map((j) => j.job)));
    for (const module of this.#modules) {
      goOn();
      this.#started.push(module);
      await module.start?.(deps);
    }
    // The local operator's commands (the embedded database's lock socket answers them).
    if (deps.database.mode === 'pglite') {
      deps.database.operatorChannel.serve(
        Object.assign({}, ...this.#modules.map((m) => m.operatorCommands?.(deps) ?? {})),
      );
    }
  }

  /**
   * After the app is ready, one step at a time with a turn of the event loop between steps (a
   * request never waits behind the whole warm-up): job workers and schedules, then each module's
   * warm-up. A failed step is logged and the others still run; `running` false stops it.
   */
  async warmUp(running: () => boolean): Promise<void> {
    const deps = this.#deps;
    const steps: Array<[string, () => Promise<void> | void]> = [];
    for (const module of this.#modules) {
      for (const { job, handler, work, cron } of module.jobs ?? []) {
        steps.push([
          `jobs ${job.name}`,
          async () => {
            await deps.jobs.work(job, handler(deps), work);
            if (cron) await deps.jobs.schedule(job, cron.expression, cron.data as never);
          },
        ]);
      }
    }
    for (const module of this.#modules) {
      if (module.warmUp) steps.push([`module ${module.name}`, () => module.warmUp?.(deps)]);
    }
    const begun = performance.now();
    for (const [name, step] of steps) {
      if (!running()) return;
      await new Promise<void>((resolve) => setImmediate(resolve));
      try {
        await step();
      } catch (error) {
        if (running()) this.#logger.error({ err: error, step: name }, 'warm-up step failed');
      }
    }
    if (running()) this.#logger.info({ ms: Math.round(performance.now() - begun) }, 'warm-up done');
  }

  /** Each started module's `stop`, last started first. */
  async stop(): Promise<void> {
    for (const module of [...this.#started].reverse()) await module.stop?.(this.#deps);
  }

  /** Each started module's `release`, last started first; then none counts as started. */
  async release(): Promise<void> {
    const started = this.#started.reverse();
    this.#started = [];
    for (const module of started) await module.release?.(this.#deps);
  }
}
