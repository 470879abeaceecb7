// Whether dist/ holds a bundle at least as new as every file under src/ (what `npm run build` made
// from the sources as they are now). The launcher, the tests and the benchmarks ask the same way.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function newestMtime(dir) {
  let newest = 0;
  for (const item of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, item.name);
    const mtime = item.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs;
    if (mtime > newest) newest = mtime;
  }
  return newest;
}

/** `root` is the repository's folder; `entry` an entry point's name in dist/ (main, mcp-stdio, apikey). */
export function isBundleFresh(root, entry = 'main') {
  const stamp = join(root, 'dist', 'BUILD');
  return (
    existsSync(join(root, 'dist', `${entry}.js`)) &&
    existsSync(stamp) &&
    statSync(stamp).mtimeMs >= newestMtime(join(root, 'src'))
  );
}
