import { getFieldIdentity } from '@envelop/rate-limiter/get-graphql-rate-limiter';
import {
  type DocumentNode,
  type ExecutionResult,
  type FragmentDefinitionNode,
  type GraphQLObjectType,
  type GraphQLSchema,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { createGraphQLError, type Plugin } from 'graphql-yoga';
import type { BaseContext } from './base-context.ts';
import { SlidingWindowStore } from './sliding-window-store.ts';

export interface RateLimitOptions {
  /** Calls allowed per client, per root field, per window. */
  readonly max: number;
  readonly windowSeconds: number;
}

/**
 * Every Query and Mutation root field (introspection excepted) is limited per client (see
 * `Viewer.clientId`). Over HTTP the answer is a 429 with a numeric Retry-After; over graphql-ws the
 * same error arrives in the operation result with `extensions.code = RATE_LIMITED`.
 *
 * An operation that is refused spends nothing: when one of its fields is over the limit, the calls
 * its other fields counted are given back, and so are they when it fails before running (its
 * variables do not fit the document, for instance: a result without `data`). Only the operation
 * that runs is counted (with the fragments it spreads), each of its root fields once per selection:
 * aliases of one field count once each.
 *
 * The useRateLimiter plugin of @envelop/rate-limiter walks the whole document with a TypeInfo on
 * every request, and its limiter copies and filters the client's whole log per field: the per-call
 * cost grows with the calls in the window. Here the limited fields are worked out once per document
 * (`limitedRootFields`), keyed as the package keys them, and each is counted in O(1) by the store.
 */
export function rateLimitPlugin(options: RateLimitOptions, store = new SlidingWindowStore()): Plugin {
  const windowMs = options.windowSeconds * 1000;
  return {
    onExecute({ args }) {
      const fields = limitedRootFields(args.schema, args.document, args.operationName);
      if (fields.length === 0) return;
      const client = (args.contextValue as unknown as BaseContext).viewer.clientId;
      const at = Date.now();
      const refused = store.charge(client, fields, options.max, windowMs, at);
      if (refused >= 0) {
        const field = fields[refused]!;
        const retryAfter = store.retryAfterSeconds(
          { contextIdentity: client, fieldIdentity: field },
          options.max,
          windowMs,
        );
        throw rateLimited(field, options, retryAfter);
      }
      return {
        onExecuteDone({ result }) {
          const single = result as ExecutionResult;
          if (!(Symbol.asyncIterator in result) && single.data === undefined && single.errors?.length) {
            store.refund(client, fields, at);
          }
        },
      };
    },
  };
}

function rateLimited(field: string, options: RateLimitOptions, retryAfter: number) {
  return createGraphQLError(
    `Rate limit exceeded for ${field}: at most ${options.max} calls per ${options.windowSeconds}s per client. ` +
      `Retry after ${retryAfter}s.`,
    {
      extensions: {
        code: 'RATE_LIMITED',
        retryAfterSeconds: retryAfter,
        http: { status: 429, headers: { 'Retry-After': String(retryAfter) } },
      },
    },
  );
}

interface LimitedFields {
  readonly schema: GraphQLSchema;
  /** The fields of the document's only operation, whatever name is asked for (execution checks it). */
  readonly only: readonly string[] | undefined;
  readonly byName: Map<string, readonly string[]>;
}

const NONE: readonly string[] = [];
const limited = new WeakMap<DocumentNode, LimitedFields>();

/**
 * The rate-limited root fields the operation that runs selects (by name, or the only one), as the
 * store keys them, a field once per selection: Query and Mutation fields, introspection excepted,
 * also inside inline fragments and the fragments it spreads on the root type. None for a
 * subscription, or when the operation to run is unclear (execution then says why). Cached per
 * document and operation name, so a document seen before costs two map lookups.
 */
export function limitedRootFields(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
): readonly string[] {
  let entry = limited.get(document);
  if (!entry || entry.schema !== schema) {
    const operations = document.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
    entry = {
      schema,
      only: operations.length === 1 ? fieldsOf(schema, document, operations[0]!) : undefined,
      byName: new Map(),
    };
    limited.set(document, entry);
  }
  if (entry.only) return entry.only;
  if (!operationName) return NONE;
  let fields = entry.byName.get(operationName);
  if (!fields) {
    const operation = document.definitions.find(
      (d): d is OperationDefinitionNode =>
        d.kind === Kind.OPERATION_DEFINITION && d.name?.value === operationName,
    );
    fields = operation ? fieldsOf(schema, document, operation) : NONE;
    entry.byName.set(operationName, fields);
  }
  return fields;
}

function fieldsOf(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
): readonly string[] {
  const root =
    operation.operation === 'query'
      ? schema.getQueryType()
      : operation.operation === 'mutation'
        ? schema.getMutationType()
        : undefined;
  if (!root) return NONE;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions)
    if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const fields: string[] = [];
  const spread = new Set<string>();
  collect(operation.selectionSet, root, fragments, spread, fields);
  return fields.length > 0 ? fields : NONE;
}

function collect(
  selections: SelectionSetNode,
  root: GraphQLObjectType,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  spread: Set<string>,
  fields: string[],
): void {
  for (const s of selections.selections) {
    if (s.kind === Kind.FIELD) {
      const name = s.name.value;
      if (!name.startsWith('__') && root.getFields()[name]) fields.push(getFieldIdentity(name, [], {}));
    } else if (s.kind === Kind.INLINE_FRAGMENT) {
      if (!s.typeCondition || s.typeCondition.name.value === root.name)
        collect(s.selectionSet, root, fragments, spread, fields);
    } else if (!spread.has(s.name.value)) {
      // A fragment counts once however often it is spread, as graphql-js collects it once.
      spread.add(s.name.value);
      const fragment = fragments.get(s.name.value);
      if (fragment?.typeCondition.name.value === root.name)
        collect(fragment.selectionSet, root, fragments, spread, fields);
    }
  }
}
