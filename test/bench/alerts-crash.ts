/**
 * Duplicates after a crash: an instance (alerts-crash-instance.ts) delivers ALERTS x EVENTS
 * webhooks to a local receiver that answers after RECEIVER_MS; once a quarter of them has arrived
 * the instance is killed (SIGKILL) and a new one starts on the same database, again at half and at
 * three quarters, and the last one runs until every delivery is recorded. The receiver counts each
 * delivery id: a duplicate is an id that arrived more than once.
 *
 * Some duplicates cannot be avoided: a request the receiver had taken but not yet answered when the
 * instance died was never known to be accepted (the receiver's count of those at the kill is printed
 * beside). The rest were accepted and not yet recorded: the window the runner keeps small.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { createFreshDatabase } from '../support/postgres-database.ts';
import { root } from './spawned-server.ts';

const ALERTS = 50;
const EVENTS = 20;
const RECEIVER_MS = 10;
/** An instance is killed once each of these shares of the deliveries has arrived, and another started. */
const KILL_AT = [0.25, 0.5, 0.75];
/** Every delivery must arrive within this long after the restart (claims lapse after 2 x 2 s + 30 s). */
const RECOVERY_CAP_MS = 240_000;

type Row = Record<string, string | number>;

/** Counts every request per X-Vigil-Delivery; answers 200 after RECEIVER_MS. */
class CountingReceiver {
  readonly seen = new Map<string, number>();
  /** Requests taken and not yet answered. */
  open = 0;
  #server: Server | undefined;
  url = '';

  async start(): Promise<void> {
    this.#server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        const id = String(request.headers['x-vigil-delivery'] ?? '');
        this.seen.set(id, (this.seen.get(id) ?? 0) + 1);
        this.open++;
        setTimeout(() => {
          this.open--;
          response.writeHead(200, { 'content-type': 'application/json' });
          response.end('{"ok":true}');
        }, RECEIVER_MS);
      });
    });
    await new Promise<void>((resolve) => this.#server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/hook`;
  }

  get duplicates(): number {
    let n = 0;
    for (const count of this.seen.values()) n += count - 1;
    return n;
  }

  close(): Promise<void> {
    this.#server?.closeAllConnections();
    return new Promise((resolve) => (this.#server ? this.#server.close(() => resolve()) : resolve()));
  }
}

/** One instance, its JSON lines read one at a time. */
class Instance {
  readonly child: ChildProcess;
  readonly #lines: AsyncIterator<string>;

  constructor(env: Record<string, string>) {
    const { DATABASE_URL: _, ...inherited } = process.env;
    this.child = spawn(process.execPath, ['--import', 'tsx', 'test/bench/alerts-crash-instance.ts'], {
      cwd: root,
      env: { ...inherited, ...env },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    this.#lines = createInterface({ input: this.child.stdout! })[Symbol.asyncIterator]();
  }

  async next(): Promise<Record<string, unknown>> {
    const { value, done } = await this.#lines.next();
    if (done) throw new Error('the instance ended');
    return JSON.parse(value) as Record<string, unknown>;
  }

  async ask(line: string): Promise<Record<string, unknown>> {
    this.child.stdin!.write(`${line}\n`);
    return this.next();
  }

  kill(): Promise<void> {
    return new Promise((resolve) => {
      if (this.child.exitCode !== null || this.child.signalCode !== null) return resolve();
      this.child.once('exit', () => resolve());
      this.child.kill('SIGKILL');
    });
  }

  async end(): Promise<void> {
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.stdin!.end();
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 15_000))]);
    await this.kill();
  }
}

async function until(what: string, ms: number, done: () => boolean): Promise<void> {
  const started = performance.now();
  while (!done()) {
    if (performance.now() - started > ms) throw new Error(`${what}: not within ${ms / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** The crash run on one database; the figures as a table row. */
export async function crashRun(label: string, env: Record<string, string>): Promise<Row> {
  const receiver = new CountingReceiver();
  await receiver.start();
  const total = ALERTS * EVENTS;
  const settings = {
    ...env,
    LOG_LEVEL: 'silent',
    WATCHDOGS_RUN: 'false',
    ALERT_DELIVERY_ALLOWED_HOSTS: '127.0.0.1',
    ALERT_DELIVERY_TIMEOUT_MS: '2000',
    ALERTS_MAX_PER_OWNER: String(ALERTS),
  };
  let last: Instance | undefined;
  try {
    const first = new Instance(settings);
    await first.next();
    await first.ask(`alerts ${ALERTS} ${receiver.url}`);
    // Every event stored and fired before the first kill (deliveries start meanwhile).
    await first.ask(`publish ${EVENTS} - ${ALERTS}`);
    let current = first;
    let arrivedAtKills = '';
    const claimed = new Set<string>();
    let unanswered = 0;
    for (const share of KILL_AT) {
      await until('deliveries before a kill', 120_000, () => receiver.seen.size >= total * share);
      unanswered += receiver.open;
      arrivedAtKills += `${arrivedAtKills ? ', ' : ''}${receiver.seen.size}`;
      await current.kill();
      current = new Instance(settings);
      last = current;
      const ready = await current.next();
      // Claims do not lapse between kills: one an earlier instance left is counted once.
      for (const id of ready.sending as string[]) claimed.add(id);
    }
    // Until every delivery is recorded as delivered: attempts cut short are resumed once their
    // claims lapse, and only then would a duplicate arrive.
    const started = performance.now();
    for (;;) {
      const { stats } = (await current.ask('stats')) as { stats: Record<string, number> };
      if ((stats.delivered ?? 0) >= total) break;
      if (performance.now() - started > RECOVERY_CAP_MS) {
        throw new Error(
          `deliveries after the restart: ${JSON.stringify(stats)} after ${RECOVERY_CAP_MS / 1000} s`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const recoveryMs = performance.now() - started;
    const duplicates = receiver.duplicates;
    return {
      database: label,
      deliveries: total,
      'arrived at kills': arrivedAtKills,
      'claimed at kills': claimed.size,
      'unanswered at kills': unanswered,
      duplicates,
      'dup % of all': (100 * duplicates) / total,
      'dup % of claimed': claimed.size > 0 ? (100 * duplicates) / claimed.size : 0,
      'avoidable dups': Math.max(0, duplicates - unanswered),
      'all recorded in s': recoveryMs / 1000,
    };
  } finally {
    await last?.end();
    await receiver.close();
  }
}

export async function crashOnPglite(): Promise<Row> {
  const dataDir = mkdtempSync(join(tmpdir(), 'vigil-bench-crash-'));
  try {
    return await crashRun('pglite', { DATA_DIR: dataDir });
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function crashOnPostgres(serverUrl: string): Promise<Row> {
  const database = await createFreshDatabase(serverUrl, 'vigil_bench_crash');
  const dataDir = mkdtempSync(join(tmpdir(), 'vigil-bench-crash-'));
  try {
    return await crashRun('postgres', {
      DATA_DIR: dataDir,
      DATABASE_URL: database.url,
      SECRETS_KEY: randomBytes(32).toString('hex'),
    });
  } finally {
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export const CRASH_SETUP =
  `${ALERTS} webhook alerts x ${EVENTS} events = ${ALERTS * EVENTS} deliveries to a receiver answering after ${RECEIVER_MS} ms; ` +
  `SIGKILL once ${KILL_AT.map((k) => `${k * 100}%`).join(', ')} arrived, each time a new instance on the same database`;
