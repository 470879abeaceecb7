// `npm run build` (also run by `npm install` through `prepare`): bundles the entry points into
// dist/ so `npm start` loads plain JavaScript instead of compiling TypeScript at every start.
// Packages stay external (node_modules is there at run time); the SQL migrations are copied beside
// the bundle, where the code looks for them.
import { cpSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('../../', import.meta.url));
const dist = `${root}dist`;

rmSync(dist, { recursive: true, force: true });
await build({
  absWorkingDir: root,
  // Named, so every entry lands in dist/ itself, beside the chunks and migrations it loads.
  entryPoints: { main: 'src/main.ts', 'mcp-stdio': 'src/mcp-stdio.ts', apikey: 'src/cli/apikey.ts' },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  sourcemap: 'linked',
  logLevel: 'warning',
});
cpSync(`${root}src/migrations`, `${dist}/migrations`, { recursive: true });
writeFileSync(`${dist}/BUILD`, `${new Date().toISOString()}\n`);
