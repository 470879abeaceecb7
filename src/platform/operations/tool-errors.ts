import { isDeepStrictEqual } from 'node:util';
import type { z } from 'zod';
import type { ToolScopes } from './operation-scope.ts';

/**
 * A tool's failures in the tool's own words. The operation behind a tool reports errors in GraphQL
 * terms (a root field refused for its scope, a variable or field argument that is invalid); the
 * caller of a tool knows none of those names, only the tool and its arguments, so they are put
 * back in the tool's terms here.
 */

export interface ToolFailure {
  readonly code: string;
  readonly message: string;
  readonly details?: Readonly<Record<string, unknown>>;
}

/** What an operation's errors may name, and what the tool's caller knows instead. */
export interface ErrorNaming {
  readonly tool: string;
  /** GraphQL names (variables, the field arguments they feed) -> the tool's argument names. */
  readonly renames: ReadonlyMap<string, string>;
  /** The root fields of the tool's operations: refusals of a whole operation name one of them. */
  readonly rootFields: ReadonlySet<string>;
}

/** Codes whose message names the refused root field as its subject (scope guard, rate limits). */
const SUBJECT_CODES: ReadonlySet<string> = new Set(['FORBIDDEN', 'UNAUTHENTICATED', 'RATE_LIMITED']);

interface OperationError {
  readonly message: string;
  readonly extensions?: Readonly<Record<string, unknown>>;
}

/**
 * The failure of a tool whose operation answered `error` (or no data): the code and details of the
 * error's extensions, with GraphQL names replaced by the tool's. A scope refusal caused by an
 * argument's value (`scopes.when`, matched against the caller's `args`, under wire names) says so:
 * the caller can drop the argument or use a key with that scope.
 */
export function operationFailure(
  error: OperationError | undefined,
  naming: ErrorNaming,
  scopes?: ToolScopes,
  args: Readonly<Record<string, unknown>> = {},
): ToolFailure {
  // `http` and `unexpected` are Yoga's own markers, not particulars of the failure.
  const { code: raw, http: _http, unexpected: _unexpected, ...rest } = error?.extensions ?? {};
  const code = typeof raw === 'string' ? raw : 'INTERNAL';
  const cause =
    code === 'FORBIDDEN'
      ? scopes?.when.find((w) => w.scope === rest.scope && isDeepStrictEqual(args[w.argument], w.value))
      : undefined;
  let message = renameIn(error?.message ?? 'the operation returned no data', naming.renames);
  if (SUBJECT_CODES.has(code)) {
    const given = cause && `${cause.argument}: ${JSON.stringify(cause.value)}`;
    const subject = given ? `${naming.tool} with \`${given}\`` : naming.tool;
    message = replaceWords(message, [...naming.rootFields], () => subject);
    if (cause) message += `; without ${cause.argument} it needs \`${scopes!.base}\``;
  }
  const details = renameDetails(rest, naming.renames);
  if (cause) details.argument = cause.argument;
  return { code, message, ...(Object.keys(details).length ? { details } : {}) };
}

/** GraphQL's `Variable "$taskId"` and every whole-word GraphQL name, in the tool's words. */
function renameIn(message: string, renames: ReadonlyMap<string, string>): string {
  if (renames.size === 0) return message;
  const named = message.replace(/\bVariable "\$(\w+)"/g, (whole, name: string) =>
    renames.has(name) ? `argument "${renames.get(name)}"` : whole,
  );
  return replaceWords(named, [...renames.keys()], (word) => renames.get(word)!, true);
}

function replaceWords(
  text: string,
  words: readonly string[],
  by: (word: string) => string,
  dollar = false,
): string {
  if (words.length === 0) return text;
  // Names are GraphQL names (letters, digits, _): nothing to escape.
  const pattern = new RegExp(`(?<![\\w$-])${dollar ? '\\$?' : ''}(${words.join('|')})(?![\\w-])`, 'g');
  return text.replace(pattern, (_whole, word: string) => by(word));
}

function renameDetails(
  details: Readonly<Record<string, unknown>>,
  renames: ReadonlyMap<string, string>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(details)) {
    if (key === 'field' && typeof value === 'string') out.field = renamePath(value, renames);
    else if (key === 'issues' && Array.isArray(value)) out.issues = value.map((i) => renameIssue(i, renames));
    else out[renames.get(key) ?? key] = value;
  }
  return out;
}

function renameIssue(issue: unknown, renames: ReadonlyMap<string, string>): unknown {
  if (typeof issue !== 'object' || issue === null || !('field' in issue)) return issue;
  const { field } = issue as { field: unknown };
  return typeof field === 'string' ? { ...issue, field: renamePath(field, renames) } : issue;
}

/** `sessionId` -> `session_id`, `$taskId` -> `task_id`, `assetClass.x` -> `asset_type.x`. */
function renamePath(path: string, renames: ReadonlyMap<string, string>): string {
  const match = /^\$?([A-Za-z_]\w*)(.*)$/s.exec(path);
  if (!match || !renames.has(match[1]!)) return path;
  return `${renames.get(match[1]!)}${match[2]}`;
}

/** Every problem with its argument path, in one message; the list in `details.issues`. */
export function invalidArguments(error: z.ZodError): ToolFailure {
  const issues = error.issues.map((i) => ({ field: i.path.join('.') || '(arguments)', message: i.message }));
  return {
    code: 'INVALID_ARGUMENTS',
    message: issues.map((i) => `${i.field}: ${i.message}`).join('; '),
    details: { issues, ...(issues[0] ? { field: issues[0].field } : {}) },
  };
}

/** The same argument under its two spellings with two values (see `resolveAliases`). */
export function argumentClash(field: string, message: string): ToolFailure {
  return { code: 'INVALID_ARGUMENTS', message, details: { issues: [{ field, message }], field } };
}
