import { type Identity, Store } from '@envelop/rate-limiter';
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

export interface RateLimitOptions {
  /** Calls allowed per client, per root field, per window. */
  readonly max: number;
  readonly windowSeconds: number;
}

/**
 * One (client, field)'s calls, oldest first, in a ring buffer that doubles when full: counting a
 * call, expiring old ones and taking back the newest copy nothing. Timestamps come from one clock in
 * order, so the calls that left the window are at the head (should the clock step back, a call
 * behind a newer one leaves with it: late, never early).
 */
class CallLog {
  #at: Float64Array;
  #head = 0;
  size = 0;

  constructor(capacity = 4) {
    this.#at = new Float64Array(capacity);
  }

  /** The i-th call still held, oldest first. */
  at(i: number): number {
    return this.#at[(this.#head + i) & (this.#at.length - 1)]!;
  }

  /** Drops the calls that have left a window of `windowMs` at `now`. */
  expire(now: number, windowMs: number): void {
    const mask = this.#at.length - 1;
    while (this.size > 0 && this.#at[this.#head]! + windowMs <= now) {
      this.#head = (this.#head + 1) & mask;
      this.size--;
    }
  }

  push(t: number): void {
    if (this.size === this.#at.length) this.#grow();
    this.#at[(this.#head + this.size) & (this.#at.length - 1)] = t;
    this.size++;
  }

  /** Takes back the newest call. */
  pop(): void {
    if (this.size > 0) this.size--;
  }

  /** Takes back one call made at `t` (the newest such); the calls after it move up one. */
  remove(t: number): void {
    const mask = this.#at.length - 1;
    for (let i = this.size - 1; i >= 0; i--) {
      if (this.at(i) !== t) continue;
      for (let j = i; j < this.size - 1; j++) this.#at[(this.#head + j) & mask] = this.at(j + 1);
      this.size--;
      return;
    }
  }

  toArray(): number[] {
    return Array.from({ length: this.size }, (_, i) => this.at(i));
  }

  #grow(): void {
    const grown = new Float64Array(this.#at.length * 2);
    for (let i = 0; i < this.size; i++) grown[i] = this.at(i);
    this.#at = grown;
    this.#head = 0;
  }
}

/**
 * Sliding-window call log per (client, field). Unlike the rate limiter's default store it forgets
 * idle clients (memory stays bounded by active clients), can say when the next call is allowed, and
 * counts or gives back a call without copying the client's log (see `charge`). It keeps the
 * `Store` contract of @envelop/rate-limiter, so the package's own limiter can count into it too.
 */
export class SlidingWindowStore extends Store {
  /** Logs by client (`contextIdentity`), then by field (`fieldIdentity`). */
  readonly #clients = new Map<string, Map<string, CallLog>>();
  #sweepAt = 0;

  override getForIdentity(identity: Identity): readonly number[] {
    return this.#log(identity)?.toArray() ?? [];
  }

  override setForIdentity(identity: Identity, timestamps: readonly number[], windowMs?: number): void {
    const log = new CallLog(capacityFor(timestamps.length));
    for (const t of [...timestamps].sort((a, b) => a - b)) log.push(t);
    let logs = this.#clients.get(identity.contextIdentity);
    if (!logs) {
      logs = new Map();
      this.#clients.set(identity.contextIdentity, logs);
    }
    if (log.size === 0) logs.delete(identity.fieldIdentity);
    else logs.set(identity.fieldIdentity, log);
    if (logs.size === 0) this.#clients.delete(identity.contextIdentity);
    if (windowMs) this.#sweep(Date.now(), windowMs);
  }

  /**
   * Counts one call at `now` for each entry of `fields` (a field named twice counts twice), unless
   * one would go over `max` calls in the window: then none is counted and its index is returned
   * (-1 when all were counted). Allocates nothing once the client's logs exist.
   */
  charge(client: string, fields: readonly string[], max: number, windowMs: number, now: number): number {
    this.#sweep(now, windowMs);
    let logs = this.#clients.get(client);
    if (!logs) {
      logs = new Map();
      this.#clients.set(client, logs);
    }
    for (let i = 0; i < fields.length; i++) {
      let log = logs.get(fields[i]!);
      if (!log) {
        log = new CallLog();
        logs.set(fields[i]!, log);
      }
      log.expire(now, windowMs);
      if (log.size >= max) {
        // Nothing ran in between: the calls this operation just counted are the newest.
        for (let j = 0; j < i; j++) logs.get(fields[j]!)?.pop();
        return i;
      }
      log.push(now);
    }
    return -1;
  }

  /**
   * Gives back the calls a `charge` at `at` counted (those still in the window), also after other
   * operations of the same client were counted.
   */
  refund(client: string, fields: readonly string[], at: number): void {
    const logs = this.#clients.get(client);
    if (!logs) return;
    for (const field of fields) logs.get(field)?.remove(at);
  }

  /** Whole seconds until one more call fits under `max` in the window (at least 1). */
  retryAfterSeconds(identity: Identity, max: number, windowMs: number): number {
    const now = Date.now();
    const log = this.#log(identity);
    log?.expire(now, windowMs);
    const freeing = log && log.size > 0 ? log.at(Math.max(0, log.size - max)) : now;
    return Math.max(1, Math.ceil((freeing + windowMs - now) / 1000));
  }

  #log(identity: Identity): CallLog | undefined {
    return this.#clients.get(identity.contextIdentity)?.get(identity.fieldIdentity);
  }

  /** Once per window: drops the calls that left it, then the logs and clients left empty. */
  #sweep(now: number, windowMs: number): void {
    if (now < this.#sweepAt) return;
    this.#sweepAt = now + windowMs;
    for (const [client, logs] of this.#clients) {
      for (const [field, log] of logs) {
        log.expire(now, windowMs);
        if (log.size === 0) logs.delete(field);
      }
      if (logs.size === 0) this.#clients.delete(client);
    }
  }
}

/** The smallest power of two (at least 4) that holds `n` calls: the ring buffer's index mask needs one. */
function capacityFor(n: number): number {
  let capacity = 4;
  while (capacity < n) capacity *= 2;
  return capacity;
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
