import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { MIGRATIONS_FOLDER } from '../../src/app-database.ts';
import { openDatabase, pgliteDirFor } from '../../src/platform/db/database.ts';
import { runMigrations } from '../../src/platform/db/migrate.ts';
import { Jobs } from '../../src/platform/jobs/jobs.ts';
import { createLogger } from '../../src/platform/observability/logger.ts';
import { ensureFreshBundle } from './bundle.ts';

/**
 * Once per test run: builds the bundle when src/ changed, and one migrated PGlite data directory
 * (with pg-boss's schema installed) that test files copy instead of running initdb and migrations
 * again (~3 s saved per file).
 */
export default async function setup(project: TestProject) {
  // Tests that spawn Vigil run the bundle (see bundle.ts); a failed build fails only those tests.
  let bundleProblem = '';
  try {
    ensureFreshBundle();
  } catch (error) {
    const stderr = String((error as { stderr?: unknown }).stderr ?? '');
    bundleProblem = (stderr.trim() || (error as Error).message).slice(0, 2_000);
  }
  project.provide('bundleProblem', bundleProblem);
  const root = mkdtempSync(join(tmpdir(), 'vigil-test-template-'));
  const logger = createLogger('silent');
  const handle = await openDatabase({ pgliteDir: pgliteDirFor(root), logger });
  await runMigrations(handle, MIGRATIONS_FOLDER);
  const jobs = new Jobs(handle, { logger });
  await jobs.start();
  await jobs.stop(1_000);
  await handle.close();
  project.provide('pgliteTemplate', root);
  return () => rmSync(root, { recursive: true, force: true });
}

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteTemplate: string;
  }
}
