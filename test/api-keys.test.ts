import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { API_KEYS_CHANNEL, ApiKeyService } from '../src/api-keys/api-key.service.ts';
import { hashApiKey } from '../src/api-keys/api-key.ts';
import { MIGRATIONS_FOLDER } from '../src/app-database.ts';
import { modules } from '../src/modules.ts';
import { effectiveScopes, LOCAL_OPERATOR, type Principal } from '../src/platform/access/principal.ts';
import { type DatabaseHandle, notify, openDatabase, pgliteDirFor } from '../src/platform/db/database.ts';
import { runMigrations } from '../src/platform/db/migrate.ts';
import { tablesOf } from '../src/platform/module.ts';
import { createLogger } from '../src/platform/observability/logger.ts';
import { createTestApp, graphql, type TestApp } from './support/app.ts';
import { BUNDLE } from './support/bundle.ts';
import { createTestDatabase, drivers, type TestDatabase } from './support/databases.ts';
import { ManualClock } from './support/manual-clock.ts';

// biome-ignore lint/suspicious/noExplicitAny: JSON answers are checked by the expectations, not by types.
type Json = any;

const ADMIN_KEY = 'an-admin-key-of-at-least-24-characters';
const READER: Principal = { kind: 'key', id: 'reader', name: 'reader', scopes: effectiveScopes(['read']) };

async function open(database: TestDatabase): Promise<DatabaseHandle> {
  const handle = await openDatabase({
    url: database.url,
    pgliteDir: pgliteDirFor(database.dataDir),
    logger: createLogger('silent'),
    tables: tablesOf(modules),
    poolSize: 3,
  });
  await runMigrations(handle, MIGRATIONS_FOLDER);
  return handle;
}

function service(handle: DatabaseHandle, clock: ManualClock, cacheTtlMs = 10_000) {
  const logger = createLogger('silent');
  const apiKeys = new ApiKeyService({ database: handle, clock, logger, adminApiKey: ADMIN_KEY, cacheTtlMs });
  return { apiKeys, logger };
}

/** Resolves with the next revocation `apiKeys` hears. */
const nextRevocation = (apiKeys: ApiKeyService) =>
  new Promise<string>((resolve) => {
    const stop = apiKeys.onRevoked((id) => {
      stop();
      resolve(id);
    });
  });

describe.each(drivers)('API keys on %s', (driver) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let clock: ManualClock;
  let apiKeys: ApiKeyService;
  let logger: ReturnType<typeof createLogger>;

  beforeAll(async () => {
    database = await createTestDatabase(driver);
    handle = await open(database);
    clock = new ManualClock();
    ({ apiKeys, logger } = service(handle, clock, 60 * 60_000));
    await apiKeys.start();
  });
  afterAll(async () => {
    await apiKeys?.stop();
    await handle?.close();
    await database?.cleanup();
  });

  const field = (promise: Promise<unknown>) =>
    promise.then(
      () => 'resolved',
      (error: Json) => `${error.code}:${error.field ?? ''}`,
    );

  it('creates a key whose secret verifies to its principal, and lists it without secret or hash', async () => {
    const { key, secret } = await apiKeys.create(
      { name: ' ci ', scopes: ['write', 'write'] },
      LOCAL_OPERATOR,
    );
    expect(key).toMatchObject({ name: 'ci', scopes: ['write'], createdBy: 'local', revokedAt: null });
    expect(secret.startsWith(`vgl_${key.prefix}_`)).toBe(true);

    const check = await apiKeys.verify(secret);
    expect(check).toEqual({
      ok: true,
      principal: { kind: 'key', id: key.id, name: 'ci', scopes: new Set(['read', 'write']), expiresAt: null },
    });

    const listed = await apiKeys.list(LOCAL_OPERATOR);
    const mine = listed.find((k) => k.id === key.id)!;
    expect(Object.keys(mine).sort()).toEqual(
      [
        'createdAt',
        'createdBy',
        'expiresAt',
        'id',
        'lastUsedAt',
        'name',
        'prefix',
        'revokedAt',
        'scopes',
      ].sort(),
    );
    const text = JSON.stringify(listed);
    expect(text).not.toContain(secret);
    expect(text).not.toContain(hashApiKey(secret));
  });

  it('lists newest first and only for admins', async () => {
    await apiKeys.create({ name: 'older', scopes: ['read'] }, LOCAL_OPERATOR);
    await clock.advance(1_000);
    await apiKeys.create({ name: 'newer', scopes: ['read'] }, LOCAL_OPERATOR);
    const names = (await apiKeys.list(LOCAL_OPERATOR)).map((k) => k.name);
    expect(names.indexOf('newer')).toBeLessThan(names.indexOf('older'));
    expect(await field(apiKeys.list(READER))).toBe('FORBIDDEN:');
    expect(await field(apiKeys.create({ name: 'x', scopes: ['read'] }, READER))).toBe('FORBIDDEN:');
  });

  it('refuses bad input, naming the field', async () => {
    const create = (name: string, scopes: string[], expiresAt?: Date) =>
      field(apiKeys.create({ name, scopes, expiresAt }, LOCAL_OPERATOR));
    expect(await create('  ', ['read'])).toBe('BAD_USER_INPUT:name');
    expect(await create('x'.repeat(101), ['read'])).toBe('BAD_USER_INPUT:name');
    expect(await create('x'.repeat(100), ['read'])).toBe('resolved');
    expect(await create('ok', [])).toBe('BAD_USER_INPUT:scopes');
    expect(await create('ok', ['read', 'root'])).toBe('BAD_USER_INPUT:scopes');
    expect(await create('ok', ['read'], clock.now())).toBe('BAD_USER_INPUT:expiresAt');
    expect(await create('ok', ['read'], new Date(Number.NaN))).toBe('BAD_USER_INPUT:expiresAt');
    // A right-to-left override would make a name display as something else.
    expect(await create('ci\u202Enimda', ['read'])).toBe('BAD_USER_INPUT:name');
  });

  it('tells a possible key from a guess from memory: a real prefix, a recent key, the admin key', async () => {
    const { secret } = await apiKeys.create({ name: 'real', scopes: ['read'] }, LOCAL_OPERATOR);
    expect(apiKeys.mayBeGenuine(secret)).toBe(true);
    // Same public prefix, wrong secret: it may be a typo of a real key, so it is looked up.
    expect(apiKeys.mayBeGenuine(`${secret.slice(0, 13)}${'A'.repeat(43)}`)).toBe(true);
    expect(apiKeys.mayBeGenuine(`vgl_zzzzzzzz_${'A'.repeat(43)}`)).toBe(false);
    expect(apiKeys.mayBeGenuine('not a key')).toBe(false);
    expect(apiKeys.mayBeGenuine(ADMIN_KEY)).toBe(true);
  });

  it('answers ADMIN_API_KEY as the bootstrap admin, and guesses as invalid without caching them', async () => {
    expect(await apiKeys.verify(ADMIN_KEY)).toMatchObject({
      ok: true,
      principal: { kind: 'bootstrap', id: 'admin', scopes: new Set(['read', 'write', 'admin']) },
    });
    const before = apiKeys.cacheSize;
    for (let i = 0; i < 20; i++) {
      const guess = `vgl_guess${String(i).padStart(3, '0')}`.slice(0, 12);
      expect(await apiKeys.verify(`${guess}_${'A'.repeat(43)}`)).toEqual({ ok: false, reason: 'invalid' });
    }
    expect(await apiKeys.verify('not a key')).toEqual({ ok: false, reason: 'invalid' });
    expect(apiKeys.cacheSize).toBe(before);
  });

  it('caches a found key until its time to live, and checks expiry on every call', async () => {
    const short = service(handle, clock, 10_000).apiKeys;
    const { key, secret } = await short.create(
      { name: 'expiring', scopes: ['read'], expiresAt: new Date(clock.now().getTime() + 60_000) },
      LOCAL_OPERATOR,
    );
    expect((await short.verify(secret)).ok).toBe(true);
    // Changed behind the cache's back: the cached answer holds until the time to live runs out.
    await handle.db.execute(sql`update api_keys set hash = ${'0'.repeat(64)} where id = ${key.id}`);
    await clock.advance(5_000);
    expect((await short.verify(secret)).ok).toBe(true);
    await clock.advance(5_000);
    expect(await short.verify(secret)).toEqual({ ok: false, reason: 'invalid' });

    const { secret: other } = await apiKeys.create(
      { name: 'expiring', scopes: ['read'], expiresAt: new Date(clock.now().getTime() + 60_000) },
      LOCAL_OPERATOR,
    );
    expect((await apiKeys.verify(other)).ok).toBe(true);
    await clock.advance(60_000);
    expect(await apiKeys.verify(other)).toEqual({ ok: false, reason: 'expired' });
    await short.stop();
  });

  it('records last use at most once a minute, off the request path', async () => {
    const { key, secret } = await apiKeys.create({ name: 'used', scopes: ['read'] }, LOCAL_OPERATOR);
    const lastUsed = async () =>
      (await apiKeys.list(LOCAL_OPERATOR)).find((k) => k.id === key.id)!.lastUsedAt;
    const first = clock.now();
    await apiKeys.verify(secret);
    await vi.waitFor(async () => expect(await lastUsed()).toEqual(first));
    await clock.advance(30_000);
    await apiKeys.verify(secret);
    await apiKeys.stop(); // waits for writes under way
    expect(await lastUsed()).toEqual(first);
    await apiKeys.start();
    await clock.advance(31_000);
    await apiKeys.verify(secret);
    await vi.waitFor(async () => expect(await lastUsed()).toEqual(clock.now()));
  });

  it('revokes at once, once, and says not found for unknown ids', async () => {
    const { key, secret } = await apiKeys.create({ name: 'leaked', scopes: ['admin'] }, LOCAL_OPERATOR);
    expect((await apiKeys.verify(secret)).ok).toBe(true);
    const heard: string[] = [];
    const stop = apiKeys.onRevoked((id) => heard.push(id));
    const revoked = await apiKeys.revoke(key.id, LOCAL_OPERATOR);
    expect(revoked.revokedAt).toEqual(clock.now());
    expect(await apiKeys.verify(secret)).toEqual({ ok: false, reason: 'revoked' });

    await clock.advance(1_000);
    // Unchanged (the use recorded off the request path may land in between: not compared).
    const again = await apiKeys.revoke(key.id.toUpperCase(), LOCAL_OPERATOR);
    expect({ ...again, lastUsedAt: null }).toEqual({ ...revoked, lastUsedAt: null });
    // The local revocation and its NOTIFY echo are announced once.
    await vi.waitFor(() => expect(heard).toEqual([key.id]));
    stop();

    expect(await field(apiKeys.revoke('00000000-0000-4000-8000-000000000000', LOCAL_OPERATOR))).toBe(
      'NOT_FOUND:',
    );
    expect(await field(apiKeys.revoke("nope'; drop table api_keys; --", LOCAL_OPERATOR))).toBe('NOT_FOUND:');
    expect(await field(apiKeys.revoke(key.id, READER))).toBe('FORBIDDEN:');
  });

  it('ignores malformed notifications, with a warning', async () => {
    const warn = vi.spyOn(logger, 'warn');
    const heard = nextRevocation(apiKeys);
    for (const payload of ['not json', '{}', '{"revoked":42}', 'null']) {
      await notify(handle.db, API_KEYS_CHANNEL, payload);
    }
    await notify(handle.db, API_KEYS_CHANNEL, JSON.stringify({ revoked: 'some-key' }));
    expect(await heard).toBe('some-key');
    expect(warn).toHaveBeenCalledTimes(4);
  });
});

describe.runIf(drivers.includes('postgres'))('revocation across instances sharing Postgres', () => {
  it('reaches a second instance through NOTIFY within a second, cache or not', async () => {
    const database = await createTestDatabase('postgres');
    const [a, b] = [await open(database), await open(database)];
    const clock = new ManualClock();
    // An hour of cache: only the notification can make the second instance forget the key.
    const first = service(a, clock, 60 * 60_000).apiKeys;
    const second = service(b, clock, 60 * 60_000).apiKeys;
    try {
      await Promise.all([first.start(), second.start()]);
      const { key, secret } = await first.create({ name: 'shared', scopes: ['read'] }, LOCAL_OPERATOR);
      expect((await second.verify(secret)).ok).toBe(true);
      const heard = nextRevocation(second);
      const started = Date.now();
      await first.revoke(key.id, LOCAL_OPERATOR);
      expect(await heard).toBe(key.id);
      expect(Date.now() - started).toBeLessThan(1_000);
      expect(await second.verify(secret)).toEqual({ ok: false, reason: 'revoked' });
    } finally {
      await Promise.all([first.stop(), second.stop()]);
      await Promise.all([a.close(), b.close()]);
      await database.cleanup();
    }
  });
});

const root = fileURLToPath(new URL('..', import.meta.url));

/** `npm run -s apikey -- <args>` in its own process, with a clean environment. */
function apikey(args: string[], database: TestDatabase) {
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    LOG_LEVEL: 'warn',
    DATA_DIR: database.dataDir,
    ...(database.url ? { DATABASE_URL: database.url } : {}),
  };
  const child = spawn(process.execPath, ['src/cli/launch.mjs', 'apikey', ...args], { cwd: root, env });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += String(chunk);
  });
  child.stderr.on('data', (chunk) => {
    stderr += String(chunk);
  });
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.once('close', (code) => resolve({ code, stdout, stderr })),
  );
}

describe.each(drivers)('the apikey command on %s', (driver) => {
  it('creates a key that verifies, lists it and revokes it', { timeout: 90_000 }, async () => {
    const database = await createTestDatabase(driver);
    try {
      const created = await apikey(
        ['create', '--name', 'ci', '--scope', 'read', '--expires-in', '30d', '--json'],
        database,
      );
      expect(created.stderr).toMatch(/shown only now/);
      expect(created.code).toBe(0);
      const { apiKey, secret } = JSON.parse(created.stdout);
      expect(apiKey).toMatchObject({ name: 'ci', scopes: ['read'], createdBy: 'local' });
      expect(Date.parse(apiKey.expiresAt) - Date.now()).toBeGreaterThan(29 * 86_400_000);

      const listed = await apikey(['list', '--json'], database);
      expect(listed.code).toBe(0);
      expect(JSON.parse(listed.stdout).map((k: Json) => k.id)).toEqual([apiKey.id]);
      expect(listed.stdout).not.toContain(secret);

      const handle = await open(database);
      try {
        const check = await service(handle, new ManualClock(new Date())).apiKeys.verify(secret);
        expect(check).toMatchObject({ ok: true, principal: { kind: 'key', id: apiKey.id } });
      } finally {
        await handle.close();
      }

      const revoked = await apikey(['revoke', apiKey.id], database);
      expect(revoked.code).toBe(0);
      expect(revoked.stdout).toContain(`API key ${apiKey.id} ("ci") is revoked`);
    } finally {
      await database.cleanup();
    }
  });
});

describe('the apikey command while a server runs on the embedded database', () => {
  it('asks the running server (which holds the database): the key works on it at once, and its revocation too', {
    timeout: 90_000,
  }, async () => {
    const database = await createTestDatabase('pglite');
    const server = spawn(process.execPath, [BUNDLE.main], {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        DATA_DIR: database.dataDir,
        PORT: '0',
        LOG_LEVEL: 'info',
        AUTH_REQUIRED: 'true',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    try {
      const url = await listeningUrl(server);
      const created = await apikey(['create', '--name', 'live', '--scope', 'read', '--json'], database);
      expect(created.stderr).toMatch(/shown only now/);
      expect(created.code).toBe(0);
      const { apiKey, secret } = JSON.parse(created.stdout);
      const viewer = () =>
        fetch(`${url}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` },
          body: JSON.stringify({ query: '{ viewer { kind id } }' }),
        });
      const answer = await viewer();
      expect(answer.status).toBe(200);
      expect(await answer.json()).toEqual({ data: { viewer: { kind: 'KEY', id: apiKey.id } } });

      const listed = await apikey(['list', '--json'], database);
      expect(JSON.parse(listed.stdout).map((k: Json) => k.id)).toEqual([apiKey.id]);

      const revoked = await apikey(['revoke', apiKey.id], database);
      expect(revoked.code).toBe(0);
      expect((await viewer()).status).toBe(401);
    } finally {
      server.kill('SIGTERM');
      await new Promise((resolve) => server.once('exit', resolve));
      await database.cleanup();
    }
  });
});

/** The URL a spawned server logs once it serves. */
async function listeningUrl(server: ReturnType<typeof spawn>): Promise<string> {
  let stderr = '';
  return new Promise((resolve, reject) => {
    server.stderr!.on('data', (chunk) => {
      stderr += String(chunk);
      const line = stderr.split('\n').find((l) => l.includes('"vigil is listening"'));
      if (line) resolve((JSON.parse(line) as { url: string }).url);
    });
    server.once('exit', (code) => reject(new Error(`the server exited (${code}):\n${stderr}`)));
  });
}

describe('the apikey command with bad arguments', () => {
  it('exits 1 naming the flag', { timeout: 60_000 }, async () => {
    const database = await createTestDatabase('pglite');
    try {
      const result = await apikey(['create', '--name', 'ci', '--scope', 'root'], database);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain('--scope: unknown scope "root"');
    } finally {
      await database.cleanup();
    }
  });
});

describe('API keys over GraphQL, with keys not required', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t?.close());

  const CREATE = `mutation ($name: String!, $scopes: [ApiScope!]!, $expiresAt: DateTime) {
    createApiKey(name: $name, scopes: $scopes, expiresAt: $expiresAt) {
      secret apiKey { id name prefix scopes createdAt createdBy expiresAt lastUsedAt revokedAt } } }`;

  it('lets an anonymous caller (every scope) create, list and revoke keys', async () => {
    const viewer = await graphql<Json>(t.app, '{ viewer { kind id scopes expiresAt } }');
    expect(viewer.body.data.viewer).toEqual({
      kind: 'ANONYMOUS',
      id: 'anonymous',
      scopes: ['READ', 'WRITE', 'ADMIN'],
      expiresAt: null,
    });

    const created = await graphql<Json>(t.app, CREATE, { name: 'dashboard', scopes: ['READ'] });
    expect(created.body.errors).toBeUndefined();
    const { secret, apiKey } = created.body.data.createApiKey;
    expect(apiKey).toMatchObject({
      name: 'dashboard',
      scopes: ['READ'],
      createdBy: 'anonymous',
      revokedAt: null,
    });
    expect((await t.app.deps.apiKeys.verify(secret)).ok).toBe(true);

    const listed = await graphql<Json>(t.app, '{ apiKeys { id name prefix scopes } }');
    expect(listed.body.data.apiKeys).toEqual([
      { id: apiKey.id, name: 'dashboard', prefix: apiKey.prefix, scopes: ['READ'] },
    ]);
    const hash = await graphql<Json>(t.app, '{ apiKeys { hash } }');
    expect((hash.body.errors?.[0] as Json)?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');

    const revoked = await graphql<Json>(
      t.app,
      'mutation ($id: ID!) { revokeApiKey(id: $id) { id revokedAt } }',
      {
        id: apiKey.id,
      },
    );
    expect(revoked.body.data.revokeApiKey.revokedAt).not.toBeNull();
    expect(await t.app.deps.apiKeys.verify(secret)).toEqual({ ok: false, reason: 'revoked' });
  });

  it('answers viewer with the key presented', async () => {
    const created = await graphql<Json>(t.app, CREATE, { name: 'reader', scopes: ['WRITE'] });
    const { secret } = created.body.data.createApiKey;
    const viewer = await graphql<Json>(t.app, '{ viewer { kind name scopes } }', undefined, {
      authorization: `Bearer ${secret}`,
    });
    expect(viewer.body.data.viewer).toEqual({ kind: 'KEY', name: 'reader', scopes: ['READ', 'WRITE'] });
  });

  it('names the field of bad input and says NOT_FOUND for unknown keys', async () => {
    const codeOf = (body: Json) => [body.errors?.[0]?.extensions?.code, body.errors?.[0]?.extensions?.field];
    expect(codeOf((await graphql(t.app, CREATE, { name: '', scopes: ['READ'] })).body)).toEqual([
      'BAD_USER_INPUT',
      'name',
    ]);
    expect(codeOf((await graphql(t.app, CREATE, { name: 'x', scopes: [] })).body)).toEqual([
      'BAD_USER_INPUT',
      'scopes',
    ]);
    const past = { name: 'x', scopes: ['READ'], expiresAt: '2001-01-01T00:00:00Z' };
    expect(codeOf((await graphql(t.app, CREATE, past)).body)).toEqual(['BAD_USER_INPUT', 'expiresAt']);
    const unknown = await graphql(t.app, 'mutation { revokeApiKey(id: "nope") { id } }');
    expect(codeOf(unknown.body)).toEqual(['NOT_FOUND', undefined]);
  });
});
