import { readFileSync } from 'node:fs';

/** The package version, read once (the service reports it in serverInfo and /healthz). */
export const VERSION: string = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
