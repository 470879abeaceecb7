import {
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  GraphQLError,
  getOperationAST,
  type OperationTypeNode,
} from 'graphql';
import type { PersistedOperations } from '../graphql/transports/persisted-operations.ts';
import type { GraphQLServer } from '../graphql/yoga.ts';
import type { Viewer } from '../http/client-identity.ts';

/** One GraphQL operation to run in-process, on behalf of a caller. */
export interface OperationCall {
  readonly document: string;
  readonly operationName?: string | undefined;
  readonly variables?: Readonly<Record<string, unknown>> | undefined;
  /** The HTTP request that carries the call: its headers and address identify the caller. */
  readonly request?: Request | undefined;
  /** The caller, when a transport already knows it (stdio, a WebSocket connection). */
  readonly viewer?: Viewer | undefined;
  /** Anything else the transport puts in the initial context (graphql-ws: its socket and request). */
  readonly transport?: Readonly<Record<string, unknown>>;
}

export type Prepared =
  | {
      readonly ok: true;
      readonly args: ExecutionArgs;
      readonly operation: OperationTypeNode;
      readonly execute: (args: ExecutionArgs) => Promise<ExecutionResult>;
      readonly subscribe: (args: ExecutionArgs) => Promise<ExecutionResult | AsyncIterable<ExecutionResult>>;
    }
  | { readonly ok: false; readonly errors: readonly GraphQLError[] };

/**
 * Runs GraphQL documents in-process through exactly the pipeline `/graphql` uses (Yoga's envelop:
 * parse and validation caches, rate limits, error masking, the context factory with the caller's
 * identity). graphql-ws, MCP tools and REST routes all go through here, so a rule enforced on one
 * surface holds on every surface.
 */
export class OperationRunner {
  constructor(
    private readonly yoga: GraphQLServer,
    /** The rules for documents clients send (APQ, the allow-list); server-defined documents skip them. */
    private readonly persisted?: PersistedOperations,
  ) {}

  /**
   * A document a client sent over a transport that does not pass Yoga's request parsing
   * (graphql-ws): held to the persisted-operation rules `/graphql` applies over HTTP, by the same
   * `extensions.persistedQuery`, so an allow-list holds on every surface clients write documents on.
   */
  async prepareClientOperation(call: OperationCall, extensions: unknown): Promise<Prepared> {
    if (!this.persisted?.active) return this.prepare(call);
    const resolution = this.persisted.resolve({ query: call.document, extensions });
    if (!resolution.ok) return { ok: false, errors: [resolution.error] };
    const prepared = await this.prepare(
      resolution.document === undefined ? call : { ...call, document: resolution.document },
    );
    if (prepared.ok && resolution.register) this.persisted.remember(resolution.register);
    return prepared;
  }

  /** Parses, validates and builds the context; the caller then executes or subscribes. */
  async prepare(call: OperationCall): Promise<Prepared> {
    const request = call.request ?? LOCAL_REQUEST;
    const params = { query: call.document, operationName: call.operationName, variables: call.variables };
    const { schema, parse, validate, contextFactory, execute, subscribe } = this.yoga.getEnveloped({
      ...call.transport,
      request,
      params,
      ...(call.viewer ? { viewer: call.viewer } : {}),
    });
    let document: DocumentNode;
    try {
      document = parse(call.document);
    } catch (error) {
      if (isGraphQLError(error)) return { ok: false, errors: [withCode(error, 'GRAPHQL_PARSE_FAILED')] };
      // Every client mistake is a GraphQLError by now; anything else is ours to log, not to show.
      this.yoga.logger.error(error);
      return { ok: false, errors: [withCode(new GraphQLError('Unexpected error.'), 'INTERNAL')] };
    }
    const errors = validate(schema, document);
    if (errors.length > 0) {
      return { ok: false, errors: errors.map((e: GraphQLError) => withCode(e, 'GRAPHQL_VALIDATION_FAILED')) };
    }
    const operation = getOperationAST(document, call.operationName);
    if (!operation) {
      const message = call.operationName
        ? `no operation named ${JSON.stringify(call.operationName.slice(0, 100))} in the document`
        : 'the document has several operations: name the one to run';
      return { ok: false, errors: [withCode(new GraphQLError(message), 'GRAPHQL_VALIDATION_FAILED')] };
    }
    return {
      ok: true,
      operation: operation.operation,
      args: {
        schema,
        document,
        operationName: call.operationName,
        variableValues: call.variables as Record<string, unknown> | undefined,
        contextValue: await contextFactory(),
      },
      execute: (args) => guarded(execute, args) as Promise<ExecutionResult>,
      subscribe: (args) => guarded(subscribe, args),
    };
  }

  /** Runs a query or mutation to its result. Errors come back in `errors`, already masked. */
  async run(call: OperationCall): Promise<ExecutionResult> {
    const prepared = await this.prepare(call);
    if (!prepared.ok) return { errors: prepared.errors };
    if (prepared.operation === 'subscription') {
      return {
        errors: [
          withCode(new GraphQLError('subscriptions cannot be run to a single result'), 'BAD_USER_INPUT'),
        ],
      };
    }
    return prepared.execute(prepared.args);
  }
}

/**
 * Stands in for an HTTP request when the caller has none (stdio, graphql-ws): no headers, no
 * address. A POST, because the rule that refuses mutations over GET guards browsers' HTTP requests,
 * not in-process calls.
 */
const LOCAL_REQUEST = new Request('http://localhost/', { method: 'POST' });

/**
 * A plugin that rejects an operation (the rate limiter) throws a GraphQLError from `execute`; it
 * becomes an ordinary error result, so no transport tears down a connection over it.
 */
async function guarded(
  run: (args: ExecutionArgs) => unknown,
  args: ExecutionArgs,
): Promise<ExecutionResult | AsyncIterable<ExecutionResult>> {
  try {
    return (await run(args)) as ExecutionResult | AsyncIterable<ExecutionResult>;
  } catch (error) {
    if (isGraphQLError(error)) return { errors: [error] };
    throw error;
  }
}

function withCode(error: GraphQLError, code: string): GraphQLError {
  if (error.extensions?.code) return error;
  return new GraphQLError(error.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    extensions: { ...error.extensions, code },
  });
}

/** By name, not instanceof: graphql ships CJS and ESM builds and either may have made the error. */
export function isGraphQLError(error: unknown): error is GraphQLError {
  return error instanceof Error && error.name === 'GraphQLError';
}
