// `node src/cli/build-console.mjs` (also part of `npm run build`): builds the console's browser code
// (src/console/app) into dist/console without touching the rest of dist/. Files of earlier builds
// are left in place (their names carry a hash), so a server still running on an earlier manifest
// keeps serving them.
import { cpSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

export async function buildConsole(root) {
  // The console (src/console/app): browser code, minified, split so that each view and its libraries
  // load on first visit; file names carry a content hash (served with a year's caching), and a
  // manifest names the entry's script and style sheet for the page.
  const consoleDir = `${root}dist/console`;
  const web = await build({
    absWorkingDir: root,
    entryPoints: { main: 'src/console/app/main.tsx' },
    outdir: consoleDir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    target: ['chrome110', 'firefox115', 'safari16'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    minify: true,
    entryNames: '[name]-[hash]',
    chunkNames: 'chunk-[hash]',
    assetNames: '[name]-[hash]',
    sourcemap: 'linked',
    metafile: true,
    legalComments: 'linked',
    logLevel: 'warning',
  });
  cpSync(`${root}src/console/app/favicon.svg`, `${consoleDir}/favicon.svg`);
  const outputs = Object.entries(web.metafile.outputs);
  const [entryJs, entry] = outputs.find(([, o]) => o.entryPoint === 'src/console/app/main.tsx') ?? [];
  if (!entryJs || !entry?.cssBundle)
    throw new Error('the console build wrote no entry script or style sheet');
  const name = (path) => path.slice(path.lastIndexOf('/') + 1);
  writeFileSync(
    `${consoleDir}/manifest.json`,
    JSON.stringify({
      js: name(entryJs),
      css: name(entry.cssBundle),
      files: [...outputs.map(([path]) => name(path)), 'favicon.svg'],
    }),
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await buildConsole(fileURLToPath(new URL('../../', import.meta.url)));
}
