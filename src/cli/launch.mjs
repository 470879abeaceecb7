// What `npm start`, `npm run mcp` and `npm run apikey` run: the bundle in dist/ when it is at least
// as new as every file under src/ (`npm run build`; `npm install` builds it), else the TypeScript
// sources through tsx. Either way the entry point runs in this process, and the npm scripts `exec`
// this file (no shell stays between npm and the server): a SIGTERM sent to `npm start` is passed on
// by npm to the server itself, which stops gracefully, and npm exits with the server's exit code.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isBundleFresh } from './bundle-freshness.mjs';

// Entry points by command word: bundled as dist/<name>.js, sources at src/<path>.
const ENTRIES = new Map([
  ['mcp', ['mcp-stdio', 'mcp-stdio.ts']],
  ['apikey', ['apikey', 'cli/apikey.ts']],
]);
const [entry, source] = ENTRIES.get(process.argv[2]) ?? ['main', 'main.ts'];
// A command line tool reads its own arguments from process.argv.slice(2), as when run directly.
if (entry === 'apikey') process.argv.splice(2, 1);
const root = fileURLToPath(new URL('../../', import.meta.url));
const built = join(root, 'dist', `${entry}.js`);

const fresh = isBundleFresh(root, entry);
if (fresh) {
  await import(pathToFileURL(built).href);
} else {
  if (existsSync(built)) {
    process.stderr.write('dist/ is older than src/: running from the sources (npm run build refreshes it)\n');
  }
  const { register } = await import('tsx/esm/api');
  register();
  await import(pathToFileURL(join(root, 'src', source)).href);
}
