import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { printedSchema } from '../schema.ts';

// `npm run schema`: regenerates the committed schema.graphql (a test fails when it is stale).
const target = fileURLToPath(new URL('../../schema.graphql', import.meta.url));
writeFileSync(target, printedSchema());
process.stderr.write(`wrote ${target}\n`);
