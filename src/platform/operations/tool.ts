import { type DocumentNode, type GraphQLSchema, Kind, parse, validate } from 'graphql';
import { z } from 'zod';
import { SCOPES, type Scope } from '../access/principal.ts';
import { rootFieldNames } from '../graphql/scope-guard.ts';
import type { Viewer } from '../http/client-identity.ts';
import { operationNames, operationVariables, zodForInputType } from './operation-input.ts';
import { operationScopes, type ToolScopes, toolScopes } from './operation-scope.ts';
import type { OperationRunner } from './runner.ts';
import {
  type ArgumentNames,
  argumentNames,
  definitionArguments,
  resolveAliases,
  wireName,
} from './tool-arguments.ts';
import {
  argumentClash,
  type ErrorNaming,
  invalidArguments,
  operationFailure,
  type ToolFailure,
} from './tool-errors.ts';

export { invalidArguments, type ToolFailure } from './tool-errors.ts';

export type ToolArgs = Readonly<Record<string, unknown>>;

/** MCP tool annotations (hints for clients; never a security boundary). */
export interface ToolAnnotations {
  readonly readOnlyHint?: boolean;
  readonly destructiveHint?: boolean;
  readonly idempotentHint?: boolean;
  readonly openWorldHint?: boolean;
}

/**
 * How an argument differs from the variable it feeds (or defines an argument that is no variable).
 * An argument is named after its variable; on the wire it is spelled in snake_case (`taskId` is
 * `task_id`, see tool-arguments.ts), and the callbacks below see the definition's names.
 */
export interface ToolArgument {
  readonly description?: string;
  readonly default?: unknown;
  /** Replaces the schema derived from the variable; required for an argument that is not a variable. */
  readonly schema?: z.ZodType;
}

/**
 * A tool is data: a GraphQL document, the arguments (derived from the operation's variables, with
 * overrides), and a mapping of the operation's data to the tool's wire shape. The same definition
 * serves MCP (`tools/call`) and the REST tool routes; the operation runs through the same pipeline
 * as `/graphql`.
 */
export interface ToolDefinition<Data = never, Result = unknown> {
  /** The tool's name on every surface (`search-by-symbol`). */
  readonly name: string;
  readonly title: string;
  readonly description: string;
  /** One or more named operations. */
  readonly document: string;
  /** Which operation to run for these arguments (default: the document's only operation). */
  readonly operationName?: (args: ToolArgs) => string;
  readonly arguments?: Readonly<Record<string, ToolArgument>>;
  /** Variables from validated arguments (default: every argument that is a variable, same name). */
  readonly variables?: (args: ToolArgs) => Record<string, unknown>;
  /** Maps the operation's `data` to the wire result. */
  readonly result: (data: Data, args: ToolArgs) => Result;
  /** Schema of the wire result (MCP `outputSchema`, OpenAPI response). */
  readonly outputSchema: z.ZodType;
  readonly annotations?: ToolAnnotations;
}

/** Who calls: the HTTP request that carries the call, or a viewer the transport already knows. */
export interface Caller {
  readonly request?: Request;
  readonly viewer?: Viewer;
}

export type ToolOutcome =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly error: ToolFailure };

/** A definition checked against the schema, with its input schema (see `checkTools`). */
export interface CheckedTool {
  readonly definition: ToolDefinition<unknown>;
  readonly name: string;
  /** The arguments under their wire names (an alias, `taskId`, is accepted by `call` but not listed). */
  readonly inputSchema: z.ZodObject;
  /** Earlier spellings the tool accepts -> the argument's wire name (`taskId` -> `task_id`). */
  readonly aliases: ReadonlyMap<string, string>;
  /** The scope a caller needs: the highest any root field of its operations needs. */
  readonly scope: Scope;
  /** The scope each call needs: without selecting arguments, and with each that needs another. */
  readonly scopes: ToolScopes;
}

/** A checked tool, ready to call: its operation runs through the runner (see `compileTools`). */
export interface Tool extends CheckedTool {
  call(args: unknown, caller: Caller): Promise<ToolOutcome>;
}

/**
 * Checks every tool's document against the schema (a schema change that breaks a tool fails here,
 * at build time and in the unit tests) and derives its input schema from the operation variables.
 */
export function checkTools(
  schema: GraphQLSchema,
  definitions: readonly ToolDefinition<never>[],
): CheckedTool[] {
  return checkAll(schema, definitions).map(({ tool }) => tool);
}

/**
 * The tools, each calling its operation through the runner. A tool is checked as `checkTools`
 * checks it (its document validated against the schema, its input schema derived) when it is
 * first used (called, listed or documented), not when the app is built: a start need not validate
 * every document, and the unit tests check them all (`checkTools` over every module's tools).
 */
export function compileTools(
  schema: GraphQLSchema,
  definitions: readonly ToolDefinition<never>[],
  runner: OperationRunner,
): Tool[] {
  uniqueNames(definitions);
  return definitions.map((raw) => {
    const definition = raw as unknown as ToolDefinition<unknown>;
    let checked: Checked | undefined;
    const check = () => {
      checked ??= checkTool(schema, raw);
      return checked;
    };
    return {
      definition,
      name: definition.name,
      get inputSchema() {
        return check().tool.inputSchema;
      },
      get scope() {
        return check().tool.scope;
      },
      get scopes() {
        return check().tool.scopes;
      },
      get aliases() {
        return check().tool.aliases;
      },
      async call(raw, caller) {
        const checked = check();
        const resolved = resolveAliases(raw ?? {}, checked.names);
        if (!resolved.ok) return { ok: false, error: argumentClash(resolved.field, resolved.message) };
        const parsed = checked.tool.inputSchema.safeParse(resolved.value);
        if (!parsed.success) return { ok: false, error: invalidArguments(parsed.error) };
        const args = definitionArguments(parsed.data, checked.names) as ToolArgs;
        const choose = (a: ToolArgs) => definition.operationName?.(a) ?? checked.defaultOperation;
        const result = await runner.run({
          document: definition.document,
          operationName: choose(args),
          variables: definition.variables?.(args) ?? pick(args, checked.variableNames),
          request: caller.request,
          viewer: caller.viewer,
        });
        const first = result.errors?.[0];
        if (first || !result.data) {
          return {
            ok: false,
            error: operationFailure(first, checked.naming, checked.tool.scopes, parsed.data),
          };
        }
        return { ok: true, value: definition.result(result.data as never, args) };
      },
    };
  });
}

interface Checked {
  readonly tool: CheckedTool;
  /** The operation run when the definition has no chooser (undefined: the anonymous one). */
  readonly defaultOperation: string | undefined;
  readonly variableNames: readonly string[];
  readonly names: ArgumentNames;
  readonly naming: ErrorNaming;
}

function checkAll(schema: GraphQLSchema, definitions: readonly ToolDefinition<never>[]): Checked[] {
  uniqueNames(definitions);
  return definitions.map((definition) => checkTool(schema, definition));
}

function uniqueNames(definitions: readonly ToolDefinition<never>[]): void {
  const names = new Set<string>();
  for (const definition of definitions) {
    if (names.has(definition.name)) throw new Error(`two tools are named ${definition.name}`);
    names.add(definition.name);
  }
}

function checkTool(schema: GraphQLSchema, definition: ToolDefinition<never>): Checked {
  const checked = definition as unknown as ToolDefinition<unknown>;
  const document = parse(checked.document);
  const problems = validate(schema, document);
  if (problems.length > 0) {
    throw new Error(
      `tool ${checked.name}: its document is not valid against the schema: ${problems.map((p) => p.message).join('; ')}`,
    );
  }
  const operations = operationNames(document);
  if (!checked.operationName && operations.length !== 1) {
    throw new Error(`tool ${checked.name}: several operations and no operationName chooser`);
  }
  const variables = operationVariables(schema, document);
  const shape = argumentShape(checked, variables);
  const names = argumentNames(checked.name, Object.keys(shape));
  const renames = new Map(names.aliases);
  // A field argument named otherwise than its variable (`quotes(assetClass: $asset_type)`) may be
  // what a resolver's error names; names without capitals are left alone (`id` is too common a word).
  for (const variable of variables.values()) {
    const wire = wireName(variable.name);
    const argument = variable.argument;
    if (argument && argument !== wire && /[A-Z]/.test(argument) && !renames.has(argument)) {
      renames.set(argument, wire);
    }
  }
  const scopes = operationScopes(schema, document);
  return {
    tool: {
      definition: checked,
      name: checked.name,
      inputSchema: z.strictObject(
        Object.fromEntries(Object.entries(shape).map(([name, field]) => [wireName(name), field])),
      ),
      aliases: names.aliases,
      scope: SCOPES[Math.max(0, ...[...scopes.values()].map((scope) => SCOPES.indexOf(scope)))]!,
      scopes: toolScopes(schema, checked, shape, wireName),
    },
    // An anonymous single operation runs without a name.
    defaultOperation: operations[0]?.startsWith('#') ? undefined : operations[0],
    variableNames: [...variables.keys()],
    names,
    naming: { tool: checked.name, renames, rootFields: rootFieldsOf(document) },
  };
}

/** The arguments' schemas under the definition's names: the variables, then arguments of its own. */
function argumentShape(
  definition: ToolDefinition<unknown>,
  variables: ReturnType<typeof operationVariables>,
): Record<string, z.ZodType> {
  const overrides = definition.arguments ?? {};
  const shape: Record<string, z.ZodType> = {};
  for (const variable of variables.values()) {
    const override = overrides[variable.name] ?? {};
    let field = override.schema ?? zodForInputType(variable.type);
    const description = override.description ?? variable.description;
    if (description) field = field.describe(description);
    const fallback = override.default ?? variable.default;
    if (fallback !== undefined) field = field.default(fallback as never);
    else if (!variable.required) field = field.optional();
    shape[variable.name] = field;
  }
  for (const [name, override] of Object.entries(overrides)) {
    if (variables.has(name)) continue;
    if (!override.schema)
      throw new Error(`tool ${definition.name}: argument ${name} is no variable and has no schema`);
    let field = override.schema;
    if (override.description) field = field.describe(override.description);
    if (override.default !== undefined) field = field.default(override.default as never);
    shape[name] = field;
  }
  return shape;
}

/** The root fields of every operation: what refusals of a whole operation name. */
function rootFieldsOf(document: DocumentNode): Set<string> {
  const fields = new Set<string>();
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
    for (const name of rootFieldNames(document, definition.selectionSet)) fields.add(name);
  }
  return fields;
}

function pick(args: ToolArgs, names: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of names) if (args[name] !== undefined) out[name] = args[name];
  return out;
}
