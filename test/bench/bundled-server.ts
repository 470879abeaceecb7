import { cpSync, mkdirSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

export type ServerModules = typeof import('./server-modules.ts');

/**
 * The server's code for a benchmark that runs it in its own process (server-modules.ts), bundled
 * the way `npm run build` bundles what `npm start` runs, rather than loaded through the TypeScript
 * loader the benchmarks themselves run on. That loader keeps every function's name (esbuild's
 * `keepNames`): each closure gets a property of its own when it is created, which the shipped
 * bundle does not do, and which cost the graphql-ws fan-out about 3 KB of heap per subscriber.
 * BENCH_FROM_SOURCES=1 loads the sources instead, to compare.
 */
export async function bundledServer(): Promise<ServerModules> {
  if (process.env.BENCH_FROM_SOURCES === '1') return import('./server-modules.ts');
  const root = fileURLToPath(new URL('../../', import.meta.url));
  // Under node_modules, so that the packages left out of the bundle resolve as they do from dist/.
  const outdir = `${root}node_modules/.cache/vigil-bench`;
  mkdirSync(outdir, { recursive: true });
  await build({
    absWorkingDir: root,
    entryPoints: { 'server-modules': 'test/bench/server-modules.ts' },
    outdir,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    logLevel: 'warning',
  });
  // The code looks for its migrations beside itself, as in dist/.
  cpSync(`${root}src/migrations`, `${outdir}/migrations`, { recursive: true });
  return (await import(pathToFileURL(`${outdir}/server-modules.js`).href)) as ServerModules;
}
