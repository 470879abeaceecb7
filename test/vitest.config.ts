import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // Node resolves `graphql` to its CJS build for our dependencies; make Vite resolve our own imports
  // to the same file, or two GraphQLError classes exist and instanceof checks fail.
  resolve: { alias: [{ find: /^graphql$/, replacement: fileURLToPath(import.meta.resolve('graphql')) }] },
  test: {
    root: fileURLToPath(new URL('..', import.meta.url)),
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Every test file gets its own database (a copied PGlite directory or a fresh Postgres database).
    sequence: { concurrent: false },
  },
});
