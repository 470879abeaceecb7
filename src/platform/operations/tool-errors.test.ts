import { describe, expect, it } from 'vitest';
import { type ErrorNaming, operationFailure } from './tool-errors.ts';

const naming: ErrorNaming = {
  tool: 'execute-fk-dsl',
  renames: new Map([
    ['sessionId', 'session_id'],
    ['assetClass', 'asset_type'],
  ]),
  rootFields: new Set(['executeFkDsl', 'submitFkDsl']),
};
const scopes = { base: 'read', when: [{ scope: 'write', argument: 'async', value: true }] } as const;

describe('tool failures in the tool’s words', () => {
  it('names the argument a scope refusal is caused by, not the mutation it chose', () => {
    const error = {
      message: 'submitFkDsl needs the `write` scope, which this API key does not have',
      extensions: { code: 'FORBIDDEN', scope: 'write', http: { status: 403 } },
    };
    expect(operationFailure(error, naming, scopes, { query: 'x', async: true })).toEqual({
      code: 'FORBIDDEN',
      message:
        'execute-fk-dsl with `async: true` needs the `write` scope, which this API key does not have; ' +
        'without async it needs `read`',
      details: { scope: 'write', argument: 'async' },
    });
  });

  it('names the tool when no argument asked for more (rate limits too)', () => {
    const forbidden = {
      message: 'executeFkDsl needs the `read` scope',
      extensions: { code: 'FORBIDDEN', scope: 'read' },
    };
    expect(operationFailure(forbidden, naming, scopes, { async: false }).message).toBe(
      'execute-fk-dsl needs the `read` scope',
    );
    const limited = {
      message: 'Rate limit exceeded for executeFkDsl: at most 5 calls per 60s per client. Retry after 3s.',
      extensions: { code: 'RATE_LIMITED', retryAfterSeconds: 3 },
    };
    expect(operationFailure(limited, naming)).toEqual({
      code: 'RATE_LIMITED',
      message: 'Rate limit exceeded for execute-fk-dsl: at most 5 calls per 60s per client. Retry after 3s.',
      details: { retryAfterSeconds: 3 },
    });
  });

  it('puts variables and field arguments in the tool’s names: message, details and fields', () => {
    const notFound = {
      message: 'sessionId "s1" was not found',
      extensions: { code: 'NOT_FOUND', sessionId: 's1' },
    };
    expect(operationFailure(notFound, naming)).toEqual({
      code: 'NOT_FOUND',
      message: 'session_id "s1" was not found',
      details: { session_id: 's1' },
    });
    const invalid = {
      message: 'Variable "$sessionId" got invalid value 1; assetClass: must be one of equity, crypto',
      extensions: {
        code: 'BAD_USER_INPUT',
        field: 'assetClass',
        issues: [{ field: '$sessionId', message: 'x' }],
      },
    };
    expect(operationFailure(invalid, naming)).toEqual({
      code: 'BAD_USER_INPUT',
      message: 'argument "session_id" got invalid value 1; asset_type: must be one of equity, crypto',
      details: { field: 'asset_type', issues: [{ field: 'session_id', message: 'x' }] },
    });
  });

  it('leaves words that are no GraphQL name of the tool, and root fields outside refusals', () => {
    const error = {
      message: 'executeFkDsl failed: sessionIds and get-sessionId',
      extensions: { code: 'INTERNAL' },
    };
    expect(operationFailure(error, naming).message).toBe('executeFkDsl failed: sessionIds and get-sessionId');
    expect(operationFailure(undefined, naming)).toEqual({
      code: 'INTERNAL',
      message: 'the operation returned no data',
    });
  });
});
