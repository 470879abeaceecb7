import type { Reporter, TestModule } from 'vitest/node';

/**
 * Prints the ten test files that took longest (import plus tests and hooks) at the end of a run,
 * so that a suite growing slow shows where.
 */
export default class SlowestFiles implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const rows = modules
      .map((module) => {
        const d = module.diagnostic();
        return { file: module.relativeModuleId, import: d.collectDuration, tests: d.duration };
      })
      .sort((a, b) => b.import + b.tests - (a.import + a.tests))
      .slice(0, 10);
    if (rows.length === 0) return;
    const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`.padStart(8);
    const lines = rows.map((r) => `${seconds(r.import + r.tests)} ${seconds(r.import)} import  ${r.file}`);
    process.stdout.write(`\nSlowest test files (total, of which import):\n${lines.join('\n')}\n`);
  }
}
