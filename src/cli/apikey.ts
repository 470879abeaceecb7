import { parseArgs } from 'node:util';
import { API_KEY_COMMANDS, apiKeyCommands, createdKeyOf, keyRecordOf } from '../api-keys/api-key.commands.ts';
import { checkExpiry, checkName, checkScopes } from '../api-keys/api-key.rules.ts';
import type { ApiKeyRecord } from '../api-keys/api-key.service.ts';
import { displayPrefix } from '../api-keys/api-key.ts';
import type { Config } from '../config.ts';
import { loadConfigOrExit } from '../config.ts';
import { systemClock } from '../platform/clock.ts';
import { DataDirInUseError, dataDirLockAddress } from '../platform/db/data-dir-lock.ts';
import { pgliteDirFor } from '../platform/db/database.ts';
import { askHolder } from '../platform/db/operator-channel.ts';
import { AppError, isAppError, ValidationError } from '../platform/errors.ts';
import { createLogger } from '../platform/observability/logger.ts';

/**
 * `npm run -s apikey -- create|list|revoke`: API keys from the command line, acting as the local
 * operator (whoever can run this already holds the database). It works on the same database as
 * the server: Postgres at DATABASE_URL, which it opens itself; or the embedded one in DATA_DIR,
 * which only one process may open, so when a server holds it the command asks that server, over
 * its local operator channel, and otherwise opens it itself.
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
  // The store's own rules, checked here too: a mistyped flag is answered before any database opens.
  checkName(values.name);
  checkScopes(scopes);
  try {
    checkExpiry(expiresAt, now);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    throw new ValidationError(expiryFlag, error.message.replace(/^expiresAt: /, ''));
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

/** The command as an operator channel request (the same on the server and here). */
function requestOf(command: Exclude<Command, { kind: 'help' }>): { command: string; args: unknown } {
  if (command.kind === 'create') {
    return {
      command: API_KEY_COMMANDS.create,
      args: { name: command.name, scopes: command.scopes, expiresAt: command.expiresAt?.toISOString() },
    };
  }
  if (command.kind === 'revoke') return { command: API_KEY_COMMANDS.revoke, args: { id: command.id } };
  return { command: API_KEY_COMMANDS.list, args: {} };
}

/**
 * Runs the request where the data is: on the running server that holds the embedded database,
 * or here on a database opened for it. The answer is JSON either way.
 */
async function execute(config: Config, request: { command: string; args: unknown }): Promise<unknown> {
  const lock = config.database.url ? undefined : dataDirLockAddress(pgliteDirFor(config.database.dataDir));
  for (let attempt = 0; ; attempt++) {
    if (lock) {
      const answer = await askHolder(lock, request.command, request.args);
      if (answer?.ok) return answer.value;
      if (answer) throw new AppError(answer.error.code, answer.error.message, answer.error.details);
    }
    try {
      return await executeHere(config, request);
    } catch (error) {
      // A server took the directory between the two: ask it instead.
      if (!(error instanceof DataDirInUseError) || attempt > 0) throw error;
    }
  }
}

async function executeHere(config: Config, request: { command: string; args: unknown }): Promise<unknown> {
  const [{ openAppDatabase }, { ApiKeyService }] = await Promise.all([
    import('../app-database.ts'),
    import('../api-keys/api-key.service.ts'),
  ]);
  // A command line answers on stdout; the service's info logs would only repeat it on stderr.
  const logger = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel);
  const database = await openAppDatabase(config, logger, { poolSize: 2, shortLived: true });
  try {
    const run = apiKeyCommands(new ApiKeyService({ database, clock: systemClock, logger }))[request.command]!;
    return JSON.parse(JSON.stringify(await run(request.args)));
  } finally {
    await database.close().catch(() => {});
  }
}

function print(command: Exclude<Command, { kind: 'help' }>, answer: unknown): void {
  const out = (text: string) => process.stdout.write(`${text}\n`);
  if (command.kind === 'create') {
    const { key, secret } = createdKeyOf(answer as Parameters<typeof createdKeyOf>[0]);
    process.stderr.write(
      `Created API key ${key.id} (${JSON.stringify(key.name)}, ${displayPrefix(key.prefix)}…, scopes ${key.scopes.join(', ')}` +
        `${key.expiresAt ? `, expires ${key.expiresAt.toISOString()}` : ''}).\n` +
        'The key is shown only now and can never be shown again: store it.\n',
    );
    out(command.json ? JSON.stringify({ apiKey: (answer as { key: unknown }).key, secret }) : secret);
    return;
  }
  if (command.kind === 'revoke') {
    const key = keyRecordOf(answer as Parameters<typeof keyRecordOf>[0]);
    out(
      command.json
        ? JSON.stringify(answer)
        : `API key ${key.id} (${JSON.stringify(key.name)}) is revoked since ${key.revokedAt?.toISOString()}.`,
    );
    return;
  }
  const keys = (answer as Parameters<typeof keyRecordOf>[0][]).map(keyRecordOf);
  if (command.json) out(JSON.stringify(answer));
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
  if (isAppError(error)) {
    const field = typeof error.details?.field === 'string' ? error.details.field : undefined;
    const flag =
      field === 'expiresAt' && command?.kind === 'create' ? command.expiryFlag : field && FLAG_OF[field];
    return field && flag ? error.message.replace(`${field}:`, `${flag}:`) : error.message;
  }
  if (error instanceof DataDirInUseError) {
    return `the embedded database in ${error.dir} is in use by ${error.pid ? `process ${error.pid}` : 'another process'}, which does not answer commands: stop it and run this again`;
  }
  if (error instanceof Error && (error as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS')) {
    return error.message;
  }
  return error instanceof Error ? error.message : String(error);
}

async function main(argv: readonly string[]): Promise<number> {
  let command: Command | undefined;
  try {
    command = parseCommand(argv, systemClock.now());
    if (command.kind === 'help') {
      process.stdout.write(USAGE);
      return 0;
    }
    const config = loadConfigOrExit();
    print(command, await execute(config, requestOf(command)));
    return 0;
  } catch (error) {
    process.stderr.write(`apikey: ${describe(error, command)}\n`);
    if (command === undefined) process.stderr.write('Run `npm run -s apikey -- help` for usage.\n');
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
