import { parseArgs } from 'node:util';
import { type ApiKeyRecord, ApiKeyService } from '../access/api-key.service.ts';
import { displayPrefix } from '../access/api-key.ts';
import { loadConfigOrExit } from '../config.ts';
import { MIGRATIONS_FOLDER } from '../deps.ts';
import { modules } from '../modules.ts';
import { LOCAL_OPERATOR } from '../platform/access/principal.ts';
import { systemClock } from '../platform/clock.ts';
import { DataDirInUseError } from '../platform/db/data-dir-lock.ts';
import { type DatabaseHandle, openDatabase, pgliteDirFor } from '../platform/db/database.ts';
import { runMigrations } from '../platform/db/migrate.ts';
import { isAppError, ValidationError } from '../platform/errors.ts';
import { tablesOf } from '../platform/module.ts';
import { createLogger } from '../platform/observability/logger.ts';

/**
 * `npm run -s apikey -- create|list|revoke`: API keys from the command line, acting as the local
 * operator (whoever can run this already holds the database). It works on the same database as
 * the server (DATABASE_URL, or the embedded one in DATA_DIR, which only one process may open).
 */
const USAGE = `Usage: npm run -s apikey -- <command> [options]

  create --name <name> --scope <read|write|admin> [--scope ...]
         [--expires <2027-01-01 | 2027-01-01T00:00:00Z> | --expires-in <90m|12h|30d|8w>]
                       creates a key and prints its secret (once: store it)
  list                 every key, newest first (never a secret)
  revoke <id>          revokes a key at once, on every instance
  help                 this text

  --json               machine-readable output on stdout

Scopes: read (queries, streams, data tools), write (one's own alerts, sessions and tasks; and read),
admin (keys, watchdog control, everyone's data; and write). Settings as for the server.
`;

type Command =
  | { readonly kind: 'help' }
  | {
      readonly kind: 'create';
      readonly name: string;
      readonly scopes: string[];
      readonly expiresAt: Date | undefined;
      readonly expiryFlag: string;
      readonly json: boolean;
    }
  | { readonly kind: 'list'; readonly json: boolean }
  | { readonly kind: 'revoke'; readonly id: string; readonly json: boolean };

/** Which options each command takes. */
const APPLIES: Readonly<Record<string, readonly string[]>> = {
  create: ['name', 'scope', 'expires', 'expires-in', 'json'],
  list: ['json'],
  revoke: ['json'],
  help: [],
};

const DURATION_UNITS_MS: Readonly<Record<string, number>> = {
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 7 * 86_400_000,
};

function parseCommand(argv: readonly string[], now: Date): Command {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      name: { type: 'string' },
      scope: { type: 'string', multiple: true },
      expires: { type: 'string' },
      'expires-in': { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [verb = 'help', ...rest] = positionals;
  if (values.help || verb === 'help' || verb === '--help') return { kind: 'help' };
  const applies = APPLIES[verb];
  if (!applies)
    throw new ValidationError(
      'command',
      `unknown command ${JSON.stringify(verb)}: use create, list or revoke`,
    );
  for (const option of Object.keys(values)) {
    if (!applies.includes(option)) throw new ValidationError(`--${option}`, `does not apply to ${verb}`);
  }
  const json = values.json ?? false;
  if (verb === 'revoke') {
    if (rest.length !== 1) throw new ValidationError('id', 'revoke takes exactly one key id (see `list`)');
    return { kind: 'revoke', id: rest[0]!, json };
  }
  if (rest.length > 0) throw new ValidationError(verb, `takes no argument (got ${JSON.stringify(rest[0])})`);
  if (verb === 'list') return { kind: 'list', json };

  if (values.name === undefined) throw new ValidationError('--name', 'is required (what the key is for)');
  const scopes = (values.scope ?? []).flatMap((s) => s.split(',')).map((s) => s.trim().toLowerCase());
  if (scopes.length === 0) throw new ValidationError('--scope', 'is required: read, write or admin');
  if (values.expires !== undefined && values['expires-in'] !== undefined) {
    throw new ValidationError('--expires', 'give --expires or --expires-in, not both');
  }
  let expiresAt: Date | undefined;
  let expiryFlag = '--expires';
  if (values.expires !== undefined) expiresAt = parseInstant(values.expires);
  if (values['expires-in'] !== undefined) {
    expiryFlag = '--expires-in';
    expiresAt = new Date(now.getTime() + parseDuration(values['expires-in']));
  }
  return { kind: 'create', name: values.name, scopes, expiresAt, expiryFlag, json };
}

/** A date (midnight UTC) or a date-time with its zone: a local time would mean different instants. */
function parseInstant(text: string): Date {
  const iso = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/i;
  const at = iso.test(text) ? new Date(text) : undefined;
  if (!at || Number.isNaN(at.getTime())) {
    throw new ValidationError(
      '--expires',
      'must be a date like 2027-01-01 or a date-time like 2027-01-01T00:00:00Z',
    );
  }
  return at;
}

function parseDuration(text: string): number {
  const match = /^(\d{1,6})([mhdw])$/.exec(text.trim());
  const amount = match ? Number(match[1]) : 0;
  if (!match || amount === 0) {
    throw new ValidationError('--expires-in', 'must be a duration like 90m, 12h, 30d or 8w');
  }
  return amount * DURATION_UNITS_MS[match[2]!]!;
}

async function run(command: Exclude<Command, { kind: 'help' }>, service: ApiKeyService): Promise<void> {
  const out = (text: string) => process.stdout.write(`${text}\n`);
  if (command.kind === 'create') {
    const { key, secret } = await service.create(
      { name: command.name, scopes: command.scopes, expiresAt: command.expiresAt },
      LOCAL_OPERATOR,
    );
    process.stderr.write(
      `Created API key ${key.id} (${JSON.stringify(key.name)}, ${displayPrefix(key.prefix)}…, scopes ${key.scopes.join(', ')}` +
        `${key.expiresAt ? `, expires ${key.expiresAt.toISOString()}` : ''}).\n` +
        'The key is shown only now and can never be shown again: store it.\n',
    );
    out(command.json ? JSON.stringify({ apiKey: key, secret }) : secret);
    return;
  }
  if (command.kind === 'revoke') {
    const key = await service.revoke(command.id, LOCAL_OPERATOR);
    out(
      command.json
        ? JSON.stringify(key)
        : `API key ${key.id} (${JSON.stringify(key.name)}) is revoked since ${key.revokedAt?.toISOString()}.`,
    );
    return;
  }
  const keys = await service.list(LOCAL_OPERATOR);
  if (command.json) out(JSON.stringify(keys));
  else out(keys.length ? table(keys, systemClock.now()) : 'No API keys.');
}

function table(keys: readonly ApiKeyRecord[], now: Date): string {
  const day = (at: Date | null) => (at ? at.toISOString().slice(0, 16).replace('T', ' ') : '-');
  const status = (key: ApiKeyRecord) =>
    key.revokedAt ? 'revoked' : key.expiresAt && key.expiresAt <= now ? 'expired' : 'active';
  const rows = [
    ['ID', 'NAME', 'PREFIX', 'SCOPES', 'CREATED', 'LAST USED', 'EXPIRES', 'STATUS'],
    ...keys.map((key) => [
      key.id,
      key.name,
      displayPrefix(key.prefix),
      key.scopes.join(','),
      day(key.createdAt),
      day(key.lastUsedAt),
      day(key.expiresAt),
      status(key),
    ]),
  ];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => [...row[column]!].length)));
  return rows
    .map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** The service's field names, as the flags that set them. */
const FLAG_OF: Readonly<Record<string, string>> = { name: '--name', scopes: '--scope' };

function describe(error: unknown, command: Command | undefined): string {
  if (error instanceof ValidationError) {
    const flag =
      error.field === 'expiresAt' && command?.kind === 'create' ? command.expiryFlag : FLAG_OF[error.field];
    return flag ? error.message.replace(`${error.field}:`, `${flag}:`) : error.message;
  }
  if (error instanceof DataDirInUseError) {
    return (
      `the embedded database in ${error.dir} is in use by ${error.pid ? `process ${error.pid}` : 'another process'} ` +
      '(a running Vigil server?): stop it and run this again, or use the createApiKey mutation ' +
      'of the running server with an admin key (ADMIN_API_KEY)'
    );
  }
  if (isAppError(error)) return error.message;
  if (error instanceof Error && (error as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS')) {
    return error.message;
  }
  return error instanceof Error ? error.message : String(error);
}

async function main(argv: readonly string[]): Promise<number> {
  let command: Command | undefined;
  let database: DatabaseHandle | undefined;
  try {
    command = parseCommand(argv, systemClock.now());
    if (command.kind === 'help') {
      process.stdout.write(USAGE);
      return 0;
    }
    const config = loadConfigOrExit();
    // A command line answers on stdout; the service's info logs would only repeat it on stderr.
    const logger = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel);
    database = await openDatabase({
      url: config.database.url,
      pgliteDir: pgliteDirFor(config.database.dataDir),
      logger,
      tables: tablesOf(modules),
      timeouts: config.database.timeouts,
      poolSize: 2,
    });
    await runMigrations(database, MIGRATIONS_FOLDER);
    await run(command, new ApiKeyService({ database, clock: systemClock, logger }));
    return 0;
  } catch (error) {
    process.stderr.write(`apikey: ${describe(error, command)}\n`);
    if (command === undefined) process.stderr.write('Run `npm run -s apikey -- help` for usage.\n');
    return 1;
  } finally {
    await database?.close().catch(() => {});
  }
}

process.exitCode = await main(process.argv.slice(2));
