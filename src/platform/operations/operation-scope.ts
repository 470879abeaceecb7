import { type DocumentNode, type GraphQLSchema, Kind, parse } from 'graphql';
import { z } from 'zod';
import { SCOPES, type Scope } from '../access/principal.ts';
import { rootFieldNames, scopeOfField } from '../graphql/scope-guard.ts';

/**
 * The scope a server-run GraphQL document needs, computed as the scope guard enforces it (the
 * highest scope any root field of the operation needs), so that what a route or a tool is labelled
 * with (`/docs`, `/openapi.json`, the index at `/`, MCP's `tools/list`) is what the server refuses.
 */

/** Each operation's scope, by name (`#<index>` for an anonymous one). */
export function operationScopes(schema: GraphQLSchema, document: DocumentNode | string): Map<string, Scope> {
  const parsed = typeof document === 'string' ? parse(document) : document;
  const scopes = new Map<string, Scope>();
  for (const [index, definition] of parsed.definitions.entries()) {
    if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
    const root = schema.getRootType(definition.operation);
    let rank = 0;
    for (const name of root ? rootFieldNames(parsed, definition.selectionSet) : []) {
      if (name.startsWith('__')) continue;
      rank = Math.max(rank, SCOPES.indexOf(scopeOfField(root!, name, definition.operation)));
    }
    scopes.set(definition.name?.value ?? `#${index}`, SCOPES[rank]!);
  }
  return scopes;
}

/** The scope a document of one operation needs (a module route's). */
export function scopeOfDocument(schema: GraphQLSchema, document: string): Scope {
  const scopes = [...operationScopes(schema, document).values()];
  if (scopes.length !== 1) throw new Error(`expected one operation, found ${scopes.length}: ${document}`);
  return scopes[0]!;
}

/** A value of one argument that makes a tool run an operation needing another scope. */
export interface ArgumentScope {
  readonly scope: Scope;
  /** The argument as the caller spells it, and the value that selects the operation. */
  readonly argument: string;
  readonly value: unknown;
}

/** The scope a tool's calls need: `base` without selecting arguments, `when` with one. */
export interface ToolScopes {
  readonly base: Scope;
  readonly when: readonly ArgumentScope[];
}

export interface ToolScopeInput {
  readonly name: string;
  readonly document: string;
  readonly operationName?: (args: Readonly<Record<string, unknown>>) => string;
}

/**
 * The scopes of a tool's calls. A tool of one operation needs that operation's scope. A tool whose
 * chooser picks the operation from its arguments is asked what it picks for the defaults, then for
 * every other value of each argument with a finite set of values (a boolean, an enum); a value
 * that picks an operation needing another scope is listed (`execute-fk-dsl`: `read`, and `write`
 * with `async: true`). `shape` holds the arguments under the chooser's names; `spell` gives the
 * name a caller uses.
 */
export function toolScopes(
  schema: GraphQLSchema,
  tool: ToolScopeInput,
  shape: Readonly<Record<string, z.ZodType>>,
  spell: (name: string) => string = (name) => name,
): ToolScopes {
  const scopes = operationScopes(schema, tool.document);
  const choose = tool.operationName;
  if (!choose) return { base: [...scopes.values()][0] ?? 'read', when: [] };
  const scopeOf = (args: Record<string, unknown>): Scope => {
    const operation = choose(args);
    const scope = scopes.get(operation);
    if (!scope) throw new Error(`tool ${tool.name}: its chooser picked ${operation}, not in its document`);
    return scope;
  };
  const defaults: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(shape)) {
    const parsed = field.safeParse(undefined);
    if (parsed.success && parsed.data !== undefined) defaults[name] = parsed.data;
  }
  const base = scopeOf(defaults);
  const when: ArgumentScope[] = [];
  for (const [name, field] of Object.entries(shape)) {
    for (const value of finiteValues(field)) {
      if (value === defaults[name]) continue;
      const scope = scopeOf({ ...defaults, [name]: value });
      if (scope !== base) when.push({ scope, argument: spell(name), value });
    }
  }
  return { base, when };
}

/** The values a boolean, enum or literal argument can take (none for any other). */
function finiteValues(field: z.ZodType): readonly unknown[] {
  let inner: z.ZodType = field;
  while (inner instanceof z.ZodDefault || inner instanceof z.ZodOptional || inner instanceof z.ZodNullable) {
    inner = inner.unwrap() as z.ZodType;
  }
  if (inner instanceof z.ZodBoolean) return [false, true];
  if (inner instanceof z.ZodEnum) return inner.options;
  if (inner instanceof z.ZodLiteral) return [...inner.values];
  return [];
}

/** `\`read\`; \`write\` with \`async: true\`` (Markdown): the scope sentence every surface shows. */
export function scopeLabel(scopes: ToolScopes): string {
  const more = scopes.when.map((w) => `\`${w.scope}\` with \`${w.argument}: ${JSON.stringify(w.value)}\``);
  return [`\`${scopes.base}\``, ...more].join('; ');
}

/** The arguments that need another scope, as JSON surfaces carry them (`x-scope-when`, `_meta`). */
export function scopeWhenJson(
  scopes: ToolScopes,
): Array<{ scope: Scope; arguments: Record<string, unknown> }> {
  return scopes.when.map((w) => ({ scope: w.scope, arguments: { [w.argument]: w.value } }));
}

/** A tool's scopes as its listings carry them (`_meta` of MCP's `tools/list` and of `GET /mcp/tools`). */
export function scopeMeta(scopes: ToolScopes): Record<string, unknown> {
  return {
    'vigil/scope': scopes.base,
    ...(scopes.when.length ? { 'vigil/scope-when': scopeWhenJson(scopes) } : {}),
  };
}
