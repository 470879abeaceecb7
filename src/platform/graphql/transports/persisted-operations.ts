import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { requestError } from '../graphql-errors.ts';
import type { ApqStore } from './apq-store.ts';

export interface PersistedOperationsOptions {
  /** Operations known in advance, by key (PERSISTED_OPERATIONS_FILE). */
  readonly listed?: Readonly<Record<string, string>> | undefined;
  /** Only listed operations run; any other document is refused (PERSISTED_OPERATIONS_ONLY). */
  readonly only?: boolean;
  /** Documents clients register by hash (automatic persisted queries); absent, APQ is off. */
  readonly apq?: ApqStore | undefined;
}

/** What a client asked to run, as GraphQL-over-HTTP parameters carry it. */
export interface ClientDocument {
  readonly query?: unknown;
  readonly extensions?: unknown;
}

/** A document a client sent with its hash, to keep once it has validated. */
export interface Registration {
  readonly hash: string;
  readonly document: string;
}

export type Resolution =
  | {
      readonly ok: true;
      /** The document to run in place of the client's (looked up by hash); absent: the client's own. */
      readonly document?: string;
      readonly register?: Registration;
    }
  | { readonly ok: false; readonly error: GraphQLError };

/**
 * Which document a client's request runs, by Apollo's persisted-query protocol
 * (`extensions.persistedQuery: { version: 1, sha256Hash }`):
 * - a listed operation (PERSISTED_OPERATIONS_FILE) by its key, or sent in full;
 * - with PERSISTED_OPERATIONS_ONLY, nothing else: an arbitrary document is refused with
 *   PERSISTED_OPERATION_REQUIRED and an unknown key with PERSISTED_OPERATION_NOT_FOUND, codes and
 *   messages that clients do not answer by registering the document (as they do PersistedQueryNotFound);
 * - otherwise any document, and with APQ a hash a client registered earlier by sending both. A miss is
 *   `PersistedQueryNotFound`, to which clients answer by sending the document with its hash.
 * Documents the server itself runs (MCP tools, REST tool routes) are not client documents and do
 * not pass here.
 */
export class PersistedOperations {
  readonly #listed: ReadonlyMap<string, string>;
  /** SHA-256 of every listed document, so a listed operation may also be sent in full. */
  readonly #listedDigests: ReadonlySet<string>;
  readonly #only: boolean;
  readonly #apq: ApqStore | undefined;

  constructor(options: PersistedOperationsOptions) {
    this.#listed = new Map(Object.entries(options.listed ?? {}));
    this.#listedDigests = new Set([...this.#listed.values()].map(sha256Hex));
    this.#only = options.only ?? false;
    this.#apq = this.#only ? undefined : options.apq;
    if (this.#only && this.#listed.size === 0) {
      throw new Error('persisted operations only, but no operation is listed');
    }
  }

  /** Whether any rule applies: without a list or APQ, every request runs as it came. */
  get active(): boolean {
    return this.#listed.size > 0 || this.#apq !== undefined;
  }

  resolve(params: ClientDocument): Resolution {
    const persisted = persistedQueryOf(params.extensions);
    if (persisted === 'invalid') {
      return refuse(
        requestError(
          'BAD_USER_INPUT',
          'extensions.persistedQuery must be { "version": 1, "sha256Hash": "<hex digest>" }',
          { field: 'extensions.persistedQuery' },
        ),
      );
    }
    const query = typeof params.query === 'string' && params.query !== '' ? params.query : undefined;
    const listed = persisted ? this.#listed.get(persisted.hash) : undefined;
    if (listed !== undefined) {
      if (query !== undefined && query !== listed) return refuse(mismatch());
      return { ok: true, document: listed };
    }
    if (query !== undefined) {
      const digest = persisted || this.#only ? sha256Hex(query) : undefined;
      if (persisted && digest !== persisted.hash) return refuse(mismatch());
      if (this.#only) return this.#listedDigests.has(digest!) ? { ok: true } : refuse(required());
      return persisted && this.#apq
        ? { ok: true, register: { hash: persisted.hash, document: query } }
        : { ok: true };
    }
    // No document: without a hash either, GraphQL answers that one is needed.
    if (!persisted) return { ok: true };
    if (this.#only) {
      return refuse(
        requestError(
          'PERSISTED_OPERATION_NOT_FOUND',
          'no listed operation has this key (this server runs only the operations it lists)',
          {},
          404,
        ),
      );
    }
    if (!this.#apq) {
      return refuse(
        requestError('PERSISTED_QUERY_NOT_SUPPORTED', 'PersistedQueryNotSupported', {
          hint: 'automatic persisted queries are off (APQ_MAX_ENTRIES=0): send the document',
        }),
      );
    }
    const stored = this.#apq.get(persisted.hash);
    if (stored !== undefined) return { ok: true, document: stored };
    return refuse(requestError('PERSISTED_QUERY_NOT_FOUND', 'PersistedQueryNotFound', {}, 404));
  }

  /** Keeps a registered document; called once it has parsed and validated, so junk is never kept. */
  remember(registration: Registration): void {
    this.#apq?.set(registration.hash, registration.document);
  }
}

/**
 * Applies the rules to `/graphql` over HTTP, where Yoga hands over the request's parameters. A
 * registration is kept only after the document validated in the same request.
 */
export function persistedOperationsPlugin(operations: PersistedOperations): Plugin {
  const pending = new WeakMap<object, Registration>();
  return {
    onParams({ params, setParams, context }) {
      const resolution = operations.resolve(params);
      if (!resolution.ok) throw resolution.error;
      if (resolution.document !== undefined) setParams({ ...params, query: resolution.document });
      if (resolution.register) pending.set(context as object, resolution.register);
    },
    onValidate({ context }) {
      const registration = pending.get(context);
      if (!registration) return;
      pending.delete(context);
      return ({ valid }) => {
        if (valid) operations.remember(registration);
      };
    },
  };
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/**
 * Reads an operations file: a JSON object of key -> document (what GraphQL Code Generator's
 * persisted documents write), or an Apollo persisted-query manifest
 * (`{ format: "apollo-persisted-query-manifest", operations: [{ id, body }] }`). Throws an Error
 * whose message says what is wrong with the file.
 */
export function loadPersistedOperations(path: string): Record<string, string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? 'not valid JSON';
    throw new Error(`cannot read ${path} (${reason})`);
  }
  const operations: Record<string, string> = Object.create(null);
  const add = (key: unknown, document: unknown) => {
    if (typeof key !== 'string' || key === '' || key.length > MAX_KEY_CHARS) {
      throw new Error(`${path}: every key must be a string of 1 to ${MAX_KEY_CHARS} characters`);
    }
    if (typeof document !== 'string' || document.trim() === '') {
      throw new Error(`${path}: the operation ${JSON.stringify(key.slice(0, 80))} has no document`);
    }
    operations[key] = document;
  };
  if (isRecord(parsed) && parsed.format === 'apollo-persisted-query-manifest') {
    if (!Array.isArray(parsed.operations)) throw new Error(`${path}: the manifest has no operations list`);
    for (const operation of parsed.operations) {
      if (!isRecord(operation)) throw new Error(`${path}: every manifest operation must be an object`);
      add(operation.id, operation.body);
    }
  } else if (isRecord(parsed)) {
    for (const [key, document] of Object.entries(parsed)) add(key, document);
  } else {
    throw new Error(`${path}: expected a JSON object of key -> document, or an Apollo manifest`);
  }
  if (Object.keys(operations).length === 0) throw new Error(`${path}: lists no operation`);
  return operations;
}

const MAX_KEY_CHARS = 256;

/** The persisted-query extension: absent, well formed, or present but unusable. */
function persistedQueryOf(extensions: unknown): { readonly hash: string } | undefined | 'invalid' {
  if (
    !isRecord(extensions) ||
    extensions.persistedQuery === undefined ||
    extensions.persistedQuery === null
  ) {
    return undefined;
  }
  const value = extensions.persistedQuery;
  if (!isRecord(value) || value.version !== 1) return 'invalid';
  const hash = value.sha256Hash;
  if (typeof hash !== 'string' || hash === '' || hash.length > MAX_KEY_CHARS) return 'invalid';
  return { hash };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const refuse = (error: GraphQLError): Resolution => ({ ok: false, error });

const mismatch = () =>
  requestError(
    'PERSISTED_QUERY_MISMATCH',
    "extensions.persistedQuery.sha256Hash is not the SHA-256 of the document sent with it (or not the listed operation's key)",
  );

const required = () =>
  requestError(
    'PERSISTED_OPERATION_REQUIRED',
    'this server runs only the operations it lists: send a listed operation, by its key in extensions.persistedQuery.sha256Hash',
    {},
    403,
  );
