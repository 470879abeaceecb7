import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';
import { isBundleFresh } from '../../src/cli/bundle-freshness.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The built entry points, as `npm start`, `npm run mcp` and `npm run apikey` run them. Tests that
 * spawn Vigil spawn these: the bundle starts in a fraction of the time the TypeScript sources take
 * through a loader, and it is what users run. The suite's setup builds it when src/ is newer; when
 * that build fails, only the tests that spawn it fail, each with the build's error.
 */
export const BUNDLE = {
  get main() {
    return entry('main');
  },
  get mcpStdio() {
    return entry('mcp-stdio');
  },
  get apikey() {
    return entry('apikey');
  },
};

function entry(name: string): string {
  const problem = inject('bundleProblem');
  if (problem) throw new Error(`the bundle could not be built (npm run build): ${problem}`);
  return join(ROOT, 'dist', `${name}.js`);
}

/** Runs `npm run build` unless dist/ is at least as new as every file under src/. */
export function ensureFreshBundle(): void {
  if (isBundleFresh(ROOT, 'main') && isBundleFresh(ROOT, 'runtime')) return;
  execFileSync(process.execPath, [join(ROOT, 'src', 'cli', 'build.mjs')], {
    cwd: ROOT,
    stdio: ['ignore', 'inherit', 'pipe'],
  });
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** Why the bundle could not be built for this run ('' when it was). */
    bundleProblem: string;
  }
}
