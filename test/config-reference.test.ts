import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { REGENERATE, renderEnvExample, renderReference, withReference } from '../src/cli/config-reference.ts';
import { parseConfig, readEnvFile } from '../src/config.ts';
import { baseShape } from '../src/config-settings.ts';

const pagePath = fileURLToPath(new URL('../docs/configuration.md', import.meta.url));
const examplePath = fileURLToPath(new URL('../.env.example', import.meta.url));

describe('the configuration reference and .env.example', () => {
  it(`docs/configuration.md lists the settings the schema declares (run \`${REGENERATE}\` after changing one)`, () => {
    const page = readFileSync(pagePath, 'utf8');
    expect(page, `docs/configuration.md is stale: run \`${REGENERATE}\``).toBe(withReference(page));
  });

  it(`.env.example lists the settings the schema declares (run \`${REGENERATE}\` after changing one)`, () => {
    expect(readFileSync(examplePath, 'utf8'), `.env.example is stale: run \`${REGENERATE}\``).toBe(
      renderEnvExample(),
    );
  });

  it('name every setting once in each file', () => {
    const reference = renderReference();
    const example = renderEnvExample();
    for (const name of Object.keys(baseShape)) {
      expect(reference.match(new RegExp(`^\\| \`${name}\` \\|`, 'gm')), name).toHaveLength(1);
      expect(example.match(new RegExp(`^(# )?${name}=`, 'gm')), name).toHaveLength(1);
    }
  });

  it('.env.example, copied to .env as it is, configures exactly the defaults', () => {
    expect(parseConfig(readEnvFile(examplePath))).toEqual(parseConfig({}));
  });
});
