import { type ExecutionResult, GraphQLError } from 'graphql';
import type { Response as SseResponse } from 'graphql-sse';
import { withoutHttp } from '../graphql-errors.ts';

/**
 * What graphql-sse answers, in the shapes it takes from its hooks: refusals before any operation
 * and results (with Yoga's HTTP status marker dropped: an event in a stream has no status).
 */

/**
 * A refusal before any operation, in GraphQL's error shape, as graphql-sse answers its own:
 * `[body, init]` is how its handler hooks answer with a response.
 */
export function refusal(
  code: string,
  message: string,
  status: number,
  details: Record<string, unknown> = {},
): SseResponse {
  return [
    JSON.stringify({ errors: [{ message, extensions: { code, ...details } }] }),
    { status, statusText: '', headers: { 'content-type': 'application/json; charset=utf-8' } },
  ];
}

/**
 * graphql-sse takes a result for one only when it has a `data` key; a result of errors alone
 * (nothing ran) keeps the key, undefined, so it is not mistaken for arguments and not sent.
 */
export function asResult(result: ExecutionResult): ExecutionResult {
  return 'data' in result ? result : { data: undefined, ...result };
}

export function failed(errors: readonly GraphQLError[]): ExecutionResult {
  return asResult({ errors: errors.map(withoutHttp) });
}

export function resultWithoutHttp(result: ExecutionResult): ExecutionResult {
  return result.errors ? { ...result, errors: result.errors.map(withoutHttp) } : result;
}

export function limitError(message: string, limit: number): GraphQLError {
  return new GraphQLError(message, {
    extensions: { code: 'SUBSCRIPTION_LIMIT', limit, setting: 'GRAPHQL_WS_MAX_SUBSCRIPTIONS' },
  });
}
