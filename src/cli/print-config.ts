import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderEnvExample, withReference } from './config-reference.ts';

// `npm run docs:config`: regenerates docs/configuration.md's settings reference and .env.example from
// src/config-settings.ts (a test fails when either is stale).
const page = fileURLToPath(new URL('../../docs/configuration.md', import.meta.url));
const example = fileURLToPath(new URL('../../.env.example', import.meta.url));

writeFileSync(page, withReference(readFileSync(page, 'utf8')));
process.stderr.write(`wrote ${page}\n`);
writeFileSync(example, renderEnvExample());
process.stderr.write(`wrote ${example}\n`);
