import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isBundleFresh } from '../../src/cli/bundle-freshness.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The built entry points, as `npm start`, `npm run mcp` and `npm run apikey` run them. Tests that
 * spawn Vigil spawn these: the bundle starts in a fraction of the time the TypeScript sources take
 * through a loader, and it is what users run. The global setup builds it when src/ is newer.
 */
export const BUNDLE = {
  main: join(ROOT, 'dist', 'main.js'),
  mcpStdio: join(ROOT, 'dist', 'mcp-stdio.js'),
  apikey: join(ROOT, 'dist', 'apikey.js'),
} as const;

/** Runs `npm run build` unless dist/ is at least as new as every file under src/. */
export function ensureFreshBundle(): void {
  if (isBundleFresh(ROOT, 'main') && isBundleFresh(ROOT, 'runtime')) return;
  execFileSync(process.execPath, [join(ROOT, 'src', 'cli', 'build.mjs')], { cwd: ROOT, stdio: 'inherit' });
}
