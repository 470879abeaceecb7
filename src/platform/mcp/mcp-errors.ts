import { type CallToolResult, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { AppError, type ErrorTable, isAppError } from '../errors.ts';
import type { Logger } from '../observability/logger.ts';
import type { OperationRunner } from '../operations/runner.ts';
import type { Caller, ToolFailure } from '../operations/tool.ts';
import type { ResourceCall, ResourceMatcher } from './mcp-resources.ts';

/** How MCP answers what fails: tool failures as results, the rest as JSON-RPC errors (mcp-server.ts). */

/** JSON-RPC code the MCP specification gives "resource not found". */
export const RESOURCE_NOT_FOUND = -32002;

/**
 * JSON-RPC server-error code for "not now": a rate limit or an overloaded server (`data.code` says
 * which, `data.details.retryAfterSeconds` when to try again).
 */
export const TRY_LATER = -32000;

/** Longest part of a client-sent URI that goes into logs and error data. */
export const URI_SHOWN = 200;

/**
 * A JSON-RPC error whose message goes on the wire as written (McpError prefixes "MCP error <code>:"
 * to its message, which the client prefixes again).
 */
export class McpProtocolError extends McpError {
  constructor(code: number, message: string, data?: unknown) {
    super(code, message, data);
    this.message = message;
  }
}

export function toolError(failure: ToolFailure): CallToolResult {
  const details = failure.details ? `\n${JSON.stringify({ details: failure.details })}` : '';
  return {
    isError: true,
    content: [{ type: 'text', text: `${failure.code}: ${failure.message}${details}` }],
  };
}

/** A ResourceCall that runs as `caller`; errors become AppErrors with the operation's code. */
export function runAs(runner: Pick<OperationRunner, 'run'>, caller: Caller): ResourceCall {
  return async <Data>(document: string, variables?: Readonly<Record<string, unknown>>) => {
    const result = await runner.run({ document, variables, request: caller.request, viewer: caller.viewer });
    const first = result.errors?.[0];
    if (first || !result.data) {
      const { code, http: _http, ...details } = (first?.extensions ?? {}) as Record<string, unknown>;
      throw new AppError(
        typeof code === 'string' ? code : 'INTERNAL',
        first?.message ?? 'the operation returned no data',
        Object.keys(details).length ? details : undefined,
      );
    }
    return result.data as Data;
  };
}

export function matchOrThrow(matcher: ResourceMatcher, uri: string) {
  const resource = matcher.match(uri);
  if (!resource) {
    const known = matcher.templates.map((t) => t.uriTemplate).join(', ') || 'none';
    throw new McpProtocolError(
      RESOURCE_NOT_FOUND,
      `no resource template matches ${JSON.stringify(uri.slice(0, URI_SHOWN))} (templates: ${known}; ` +
        "percent-encode '/' inside a value as %2F)",
      { uri: uri.slice(0, URI_SHOWN) },
    );
  }
  return resource;
}

/** Domain errors keep their message and code; anything else is logged and answered without internals. */
export function resourceError(error: unknown, uri: string, errors: ErrorTable, logger: Logger): McpError {
  if (error instanceof McpError) return error;
  if (isAppError(error)) {
    const { status } = errors.spec(error.code);
    const code =
      status === 404
        ? RESOURCE_NOT_FOUND
        : status === 429 || status === 503
          ? TRY_LATER
          : status >= 400 && status < 500
            ? ErrorCode.InvalidParams
            : ErrorCode.InternalError;
    return new McpProtocolError(code, error.message, {
      code: error.code,
      uri: uri.slice(0, URI_SHOWN),
      ...(error.details ? { details: error.details } : {}),
    });
  }
  logger.error({ err: error, uri: uri.slice(0, URI_SHOWN) }, 'mcp resource failed unexpectedly');
  return new McpProtocolError(ErrorCode.InternalError, 'internal error', { uri: uri.slice(0, URI_SHOWN) });
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
