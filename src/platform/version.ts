import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The package version, read once (the service reports it in serverInfo and /healthz). The nearest
 * package.json above this file is Vigil's, whether it runs from src/ or from the bundle in dist/.
 */
export const VERSION: string = readVersion(dirname(fileURLToPath(import.meta.url)));

function readVersion(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
    if (dirname(dir) === dir) throw new Error('package.json not found above the running code');
  }
}
