import { isDeepStrictEqual } from 'node:util';

/**
 * The spelling of tool arguments on the wire. Tools answer in snake_case (`task_id`, `session_id`),
 * so their arguments take snake_case too: an agent passes back what it was given under the same
 * key. A definition names its arguments after the operation's variables (`taskId`); the wire name
 * is derived from it, and the definition's own spelling stays accepted as an alias, since the tools
 * documented it before.
 */

/** `taskId` -> `task_id`, `ttlHours` -> `ttl_hours`; a name without capitals is left as it is. */
export function wireName(name: string): string {
  if (!/[A-Z]/.test(name)) return name;
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z])([A-Z][a-z])/g, '$1_$2')
    .toLowerCase();
}

/** How one tool's arguments are spelled on the wire and in its definition. */
export interface ArgumentNames {
  /** Wire name -> the definition's name (the variable's, or the override's key). */
  readonly definitionName: ReadonlyMap<string, string>;
  /** Accepted earlier spelling -> wire name (`taskId` -> `task_id`). */
  readonly aliases: ReadonlyMap<string, string>;
}

/** The wire names of a definition's arguments; two that would share one wire name are refused. */
export function argumentNames(tool: string, names: Iterable<string>): ArgumentNames {
  const definitionName = new Map<string, string>();
  const aliases = new Map<string, string>();
  for (const name of names) {
    const wire = wireName(name);
    const taken = definitionName.get(wire);
    if (taken !== undefined) {
      throw new Error(`tool ${tool}: arguments ${taken} and ${name} are both spelled ${wire} on the wire`);
    }
    definitionName.set(wire, name);
    if (wire !== name) aliases.set(name, wire);
  }
  for (const alias of aliases.keys()) {
    if (definitionName.has(alias)) throw new Error(`tool ${tool}: ${alias} is an argument and an alias`);
  }
  return { definitionName, aliases };
}

export type AliasOutcome =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly field: string; readonly message: string };

/**
 * The caller's arguments with every alias moved to its wire name. The same value under both names
 * is one argument given twice; different values are refused, since either choice would be a guess.
 */
export function resolveAliases(raw: unknown, names: ArgumentNames): AliasOutcome {
  if (names.aliases.size === 0 || typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return { ok: true, value: raw };
  }
  const given = raw as Record<string, unknown>;
  if (![...names.aliases.keys()].some((alias) => Object.hasOwn(given, alias)))
    return { ok: true, value: raw };
  const out: Record<string, unknown> = { ...given };
  for (const [alias, wire] of names.aliases) {
    if (!Object.hasOwn(given, alias)) continue;
    if (Object.hasOwn(given, wire) && !isDeepStrictEqual(given[wire], given[alias])) {
      return {
        ok: false,
        field: wire,
        message:
          `${wire} and ${alias} name the same argument (${alias} is its earlier spelling) and were given ` +
          `different values; pass ${wire} only`,
      };
    }
    out[wire] = given[alias];
    delete out[alias];
  }
  return { ok: true, value: out };
}

/** Validated arguments (wire names) under the names the definition uses. */
export function definitionArguments(
  args: Readonly<Record<string, unknown>>,
  names: ArgumentNames,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [wire, value] of Object.entries(args)) out[names.definitionName.get(wire) ?? wire] = value;
  return out;
}
