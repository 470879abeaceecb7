import { availableParallelism } from 'node:os';
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
    reporters: ['default', './test/support/slowest-files.reporter.ts'],
    pool: 'forks',
    // Every core, at least two: most of a file's time is spent waiting on a database, a spawned
    // process or a socket, and vitest's default (one core fewer) is one worker on a 2-core machine.
    // (Three workers on two cores took as long as two.) At most eight: each worker holds its own
    // embedded databases and servers in memory.
    maxWorkers: Math.min(8, Math.max(2, availableParallelism())),
    // Test files share a worker's module cache: importing the app's modules once per worker instead
    // of once per file. Every file builds its own app, database and servers, and restores what it
    // changes (timers, spies), so nothing but the modules themselves is shared.
    isolate: false,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Every test file gets its own database (a copied PGlite directory or a fresh Postgres database).
    sequence: { concurrent: false },
  },
});
