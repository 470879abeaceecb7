import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { printedSchema } from '../src/schema.ts';

describe('schema.graphql', () => {
  it('is the schema the code builds (run `npm run schema` after changing a *.graphql.ts file)', () => {
    const committed = readFileSync(new URL('../schema.graphql', import.meta.url), 'utf8');
    expect(committed).toBe(printedSchema());
  });
});
