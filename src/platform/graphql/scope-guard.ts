import {
  type DocumentNode,
  type ExecutionArgs,
  type FragmentDefinitionNode,
  type GraphQLObjectType,
  type GraphQLSchema,
  getOperationAST,
  Kind,
  type OperationTypeNode,
  type SelectionSetNode,
} from 'graphql';
import { createGraphQLError, type Plugin } from 'graphql-yoga';
import { requireScope, SCOPES, type Scope } from '../access/principal.ts';
import { ErrorTable, isAppError, PLATFORM_ERRORS } from '../errors.ts';
import type { BaseContext } from './base-context.ts';

/** Field extension naming the scope a root field needs (see `requiresScope`). */
const SCOPE_EXTENSION = 'scope';

/** What a root field needs when it names nothing: reads need `read`, mutations `write`. */
export const DEFAULT_SCOPE: Readonly<Record<OperationTypeNode, Scope>> = {
  query: 'read',
  subscription: 'read',
  mutation: 'write',
};

/** Field options for a root field that needs more than its operation type's default scope. */
export function requiresScope(scope: Scope): { extensions: Record<string, unknown> } {
  return { extensions: { [SCOPE_EXTENSION]: scope } };
}

/** The scope a root field needs: its own extension, else its operation type's default. */
export function scopeOfField(root: GraphQLObjectType, name: string, operation: OperationTypeNode): Scope {
  const declared = root.getFields()[name]?.extensions?.[SCOPE_EXTENSION];
  return typeof declared === 'string' && (SCOPES as readonly string[]).includes(declared)
    ? (declared as Scope)
    : DEFAULT_SCOPE[operation];
}

/** The platform's codes, for a server built without the app's table: the guard's codes are among them. */
const PLATFORM_TABLE = new ErrorTable(PLATFORM_ERRORS);

/**
 * Checks, before anything runs, that the caller holds the scope of every root field the operation
 * selects (through fragments too); the operation is refused whole, with the scope named, rather
 * than run in part. The same plugin guards every surface, since MCP tools, REST routes and
 * graphql-ws all run through Yoga's envelop. Over HTTP the refusal has its code's status in the
 * error table (a missing or unknown key 401, a key without the scope 403).
 */
export function scopeGuardPlugin(
  statusOf: (code: string) => number = (code) => PLATFORM_TABLE.status(code),
): Plugin {
  const check = (args: ExecutionArgs) => {
    const operation = getOperationAST(args.document, args.operationName);
    const root = operation && args.schema.getRootType(operation.operation);
    if (!operation || !root) return;
    const context = args.contextValue as BaseContext;
    for (const name of rootFieldNames(args.document, operation.selectionSet)) {
      if (name === '__typename') continue;
      const scope = name.startsWith('__') ? 'read' : scopeOfField(root, name, operation.operation);
      try {
        requireScope(context.viewer.principal, scope, name);
      } catch (error) {
        if (!isAppError(error)) throw error;
        const status = statusOf(error.code);
        throw createGraphQLError(error.message, {
          extensions: {
            code: error.code,
            ...error.details,
            http: { status, headers: status === 401 ? { 'WWW-Authenticate': 'Bearer' } : {} },
          },
        });
      }
    }
  };
  return {
    onExecute({ args }) {
      check(args);
    },
    onSubscribe({ args }) {
      check(args);
    },
  };
}

/** The root fields an operation selects, through fragment spreads and inline fragments. */
export function rootFieldNames(document: DocumentNode, selectionSet: SelectionSetNode): Set<string> {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const names = new Set<string>();
  const seen = new Set<string>();
  const visit = (set: SelectionSetNode) => {
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) names.add(selection.name.value);
      else if (selection.kind === Kind.INLINE_FRAGMENT) visit(selection.selectionSet);
      else if (!seen.has(selection.name.value)) {
        seen.add(selection.name.value);
        const fragment = fragments.get(selection.name.value);
        if (fragment) visit(fragment.selectionSet);
      }
    }
  };
  visit(selectionSet);
  return names;
}

/**
 * Ends every root field's description with the scope it needs (`Scope: \`read\`.`), unless the
 * description already says it: the schema documents access the way the guard enforces it.
 */
export function documentScopes(schema: GraphQLSchema): GraphQLSchema {
  for (const operation of ['query', 'mutation', 'subscription'] as const) {
    const root = schema.getRootType(operation as OperationTypeNode);
    if (!root) continue;
    for (const field of Object.values(root.getFields())) {
      if (field.description?.includes('Scope: `')) continue;
      const scope = scopeOfField(root, field.name, operation as OperationTypeNode);
      const sentence = `Scope: \`${scope}\`.`;
      field.description = field.description ? `${field.description.trimEnd()} ${sentence}` : sentence;
    }
  }
  return schema;
}
