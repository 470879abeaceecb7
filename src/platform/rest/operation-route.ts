import type { ErrorTable } from '../errors.ts';
import { isAppError } from '../errors.ts';
import type { RouteContext, RouteHandler } from '../http/http-routes.ts';
import { errorResponse } from '../http/responses.ts';
import type { OperationRunner } from '../operations/runner.ts';
import type { ToolFailure } from '../operations/tool.ts';

/** What a route needs to answer from a GraphQL operation (the host hands both to module routes). */
export interface RouteOperations {
  readonly operations: OperationRunner;
  readonly errors: ErrorTable;
}

export interface RouteOperation {
  readonly document: string;
  readonly operationName?: string;
  readonly variables?: Readonly<Record<string, unknown>>;
}

export type RouteOperationOutcome<Data> =
  | { readonly ok: true; readonly data: Data }
  | { readonly ok: false; readonly response: Response };

/**
 * Runs a server-defined GraphQL document as the route's caller, through the same pipeline as
 * `/graphql` (validation, scope guard, rate limits, error masking). The operation's first error
 * becomes the REST error body with the status the error table gives its code, as the tool routes
 * render a failed tool call; the route only maps `data` to its wire shape.
 */
export async function runRouteOperation<Data>(
  host: RouteOperations,
  operation: RouteOperation,
  request: Request,
  context: RouteContext,
): Promise<RouteOperationOutcome<Data>> {
  const result = await host.operations.run({
    document: operation.document,
    operationName: operation.operationName,
    variables: operation.variables,
    request,
    viewer: context.viewer,
  });
  const first = result.errors?.[0];
  if (first || !result.data) {
    return { ok: false, response: errorResponse(operationFailure(first), host.errors) };
  }
  return { ok: true, data: result.data as Data };
}

/** A GraphQL error as a REST failure: its code and message, and its extensions as details. */
export function operationFailure(
  error: { readonly message: string; readonly extensions?: Readonly<Record<string, unknown>> } | undefined,
): ToolFailure {
  // `http` and `unexpected` are Yoga's own markers, not particulars of the failure.
  const {
    code,
    http: _http,
    unexpected: _unexpected,
    ...details
  } = (error?.extensions ?? {}) as Record<string, unknown>;
  return {
    code: typeof code === 'string' ? code : 'INTERNAL',
    message: error?.message ?? 'the operation returned no data',
    ...(Object.keys(details).length ? { details } : {}),
  };
}

/**
 * A route that answers from one GraphQL document: `variables` reads the request (a refusal it
 * throws, such as a bad query parameter, is answered with its code, before anything runs), the
 * document runs as the caller (runRouteOperation), and `respond` maps its data to the wire.
 */
export function operationHandler<Data>(
  document: string,
  variables: (
    request: Request,
    context: RouteContext,
  ) => RouteOperation['variables'] | Promise<RouteOperation['variables']>,
  respond: (data: Data, request: Request, context: RouteContext) => Response,
): (host: RouteOperations) => RouteHandler {
  return (host) => async (request, context) => {
    let operation: RouteOperation;
    try {
      operation = { document, variables: await variables(request, context) };
    } catch (error) {
      if (isAppError(error)) return errorResponse(error, host.errors);
      throw error;
    }
    const outcome = await runRouteOperation<Data>(host, operation, request, context);
    return outcome.ok ? respond(outcome.data, request, context) : outcome.response;
  };
}
