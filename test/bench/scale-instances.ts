import { cpSync, mkdirSync, rmSync } from 'node:fs';
import { build } from 'esbuild';
import { root, type SpawnedServer, spawnServer } from './spawned-server.ts';

/**
 * The scale benchmark's Vigil instances: scale-instance.ts bundled the way `npm run build` bundles
 * `npm start` (into a cache folder of its own, so the shared dist/ is left alone and the bundle is
 * always the current sources), each run in a process of its own on one Postgres database, and
 * read through their own /metrics. BENCH_FROM_SOURCES=1 runs the TypeScript sources instead.
 */
export interface Instance extends SpawnedServer {
  readonly name: string;
}

/**
 * The command that runs one instance. SCALE_SOURCE_ROOT names another copy of the repository to
 * bundle from (say a `git archive` of an earlier commit, for a before-and-after comparison).
 */
export async function instanceCommand(): Promise<string[]> {
  if (process.env.BENCH_FROM_SOURCES === '1') return ['--import', 'tsx', 'test/bench/scale-instance.ts'];
  const sources = process.env.SCALE_SOURCE_ROOT
    ? `${process.env.SCALE_SOURCE_ROOT.replace(/\/$/, '')}/`
    : root;
  // Under this checkout's node_modules, so that the packages left out of the bundle resolve.
  const outdir = `${root}node_modules/.cache/vigil-bench-scale`;
  mkdirSync(outdir, { recursive: true });
  await build({
    absWorkingDir: sources,
    entryPoints: { 'scale-instance': 'test/bench/scale-instance.ts' },
    outdir,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    logLevel: 'warning',
  });
  // The code looks for its migrations beside itself, as in dist/.
  rmSync(`${outdir}/migrations`, { recursive: true, force: true });
  cpSync(`${sources}src/migrations`, `${outdir}/migrations`, { recursive: true });
  return [`${outdir}/scale-instance.js`];
}

/** Starts `count` instances one after another (each migrates, then waits for /readyz). */
export async function startInstances(
  command: readonly string[],
  count: number,
  env: Record<string, string>,
): Promise<Instance[]> {
  const instances: Instance[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const server = await spawnServer(command, env);
      instances.push({ ...server, name: `instance ${i + 1} (:${server.port})` });
    }
  } catch (error) {
    await Promise.all(instances.map((i) => i.stop()));
    throw error;
  }
  return instances;
}

/** `kill -9`: resolved once the process is gone. */
export function killHard(instance: Instance): Promise<void> {
  return new Promise((resolve) => {
    if (instance.child.exitCode !== null || instance.child.signalCode !== null) return resolve();
    instance.child.once('exit', () => resolve());
    instance.child.kill('SIGKILL');
  });
}

/**
 * A metric's value summed over its series, read from the instance's own /metrics (not through the
 * proxy); undefined when the instance does not export it (or does not answer).
 */
export async function metric(instance: Instance, name: string): Promise<number | undefined> {
  return (await metrics(instance, [name]))[name];
}

export async function metrics(
  instance: Instance,
  names: readonly string[],
): Promise<Record<string, number | undefined>> {
  const text = await fetch(`http://127.0.0.1:${instance.port}/metrics`, {
    signal: AbortSignal.timeout(5_000),
  })
    .then((r) => (r.ok ? r.text() : ''))
    .catch(() => '');
  const found: Record<string, number | undefined> = {};
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{[^}]*\})? (\S+)/.exec(line);
    if (!match || !names.includes(match[1]!)) continue;
    found[match[1]!] = (found[match[1]!] ?? 0) + Number(match[2]);
  }
  return found;
}
