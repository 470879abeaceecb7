// `npm run build` (also run by `npm install` through `prepare`): bundles the entry points into
// dist/ so `npm start` loads plain JavaScript instead of compiling TypeScript at every start.
// Packages are bundled too: resolving and reading hundreds of small module files was most of the
// load time. Kept outside are PGlite (it reads its WebAssembly and data files beside its own
// module), swagger-ui-dist (its files are served from its folder) and optional native addons.
// Code that a first request does not need is imported where it is used, so it lands in chunks of
// its own that load on first use (GraphiQL, the database drivers). The SQL migrations are copied
// beside the bundle, where the code looks for them.
import { cpSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { buildConsole } from './build-console.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const dist = `${root}dist`;

rmSync(dist, { recursive: true, force: true });
const result = await build({
  absWorkingDir: root,
  // Named, so every entry lands in dist/ itself, beside the chunks and migrations it loads.
  entryPoints: {
    main: 'src/main.ts',
    'mcp-stdio': 'src/mcp-stdio.ts',
    apikey: 'src/cli/apikey.ts',
    // What the entry points import once the port is open: an entry of its own, so that its load
    // can be timed alone (npm run bench startup).
    runtime: 'src/runtime.ts',
  },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: ['@electric-sql/pglite', 'swagger-ui-dist', 'pg-native', 'bufferutil', 'utf-8-validate'],
  // CommonJS packages inside an ES module bundle still call require() for Node's built-ins.
  banner: {
    js: "import { createRequire as __vigilCreateRequire } from 'node:module'; const require = __vigilCreateRequire(import.meta.url);",
  },
  sourcemap: 'linked',
  metafile: !!process.env.VIGIL_BUILD_META,
  logLevel: 'warning',
});
if (result.metafile) writeFileSync(process.env.VIGIL_BUILD_META, JSON.stringify(result.metafile));

// The console's browser code: dist/console (build-console.mjs).
await buildConsole(root);
cpSync(`${root}src/migrations`, `${dist}/migrations`, { recursive: true });
writeFileSync(`${dist}/BUILD`, `${new Date().toISOString()}\n`);
