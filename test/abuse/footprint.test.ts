import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type DatabaseHandle, openDatabase, pgliteDirFor } from '../../src/platform/db/database.ts';
import { initPgliteDir } from '../../src/platform/db/pglite-init.ts';
import { createLogger } from '../../src/platform/observability/logger.ts';

/**
 * The embedded database's memory. Each PGlite instance has a WebAssembly memory of at least 128 MB
 * (counted in `external`); creating a data directory used to leave the throwaway initdb instances'
 * memories in the server until a full collection an idle server never runs (~630 MB external, ~840
 * MB RSS idle), and Postgres' default 128 MB buffer pool is resident from the start.
 */
const MIN_INSTANCE_MEMORY = 128 * 1024 * 1024;
const dataDir = mkdtempSync(join(tmpdir(), 'vigil-footprint-'));
let handle: DatabaseHandle | undefined;

afterAll(async () => {
  await handle?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('embedded database footprint', () => {
  it('opening a new data directory keeps one database instance in memory, not three', async () => {
    const before = process.memoryUsage().external;
    handle = await openDatabase({ pgliteDir: pgliteDirFor(dataDir), logger: createLogger('silent') });
    const grown = process.memoryUsage().external - before;
    expect(grown).toBeLessThan(2 * MIN_INSTANCE_MEMORY);
  });

  it('runs with a buffer pool sized for embedded data', async () => {
    if (handle?.mode !== 'pglite') throw new Error('expected the embedded database');
    const { rows } = await handle.pglite.query<{ shared_buffers: string }>('show shared_buffers');
    expect(rows[0]?.shared_buffers).toBe('16MB');
  });

  it('reports a data directory it cannot create, with the reason', async () => {
    const file = join(dataDir, 'not-a-directory');
    writeFileSync(file, '');
    await expect(initPgliteDir(join(file, 'pglite'))).rejects.toThrow(
      /could not create the embedded database/,
    );
  });
});
