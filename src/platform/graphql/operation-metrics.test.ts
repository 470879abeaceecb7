import { GraphQLError } from 'graphql';
import { describe, expect, it } from 'vitest';
import { DatabaseUnavailableError } from '../db/db-errors.ts';
import { AppError } from '../errors.ts';
import { codeOf, surfaceOf } from './operation-metrics.ts';

describe('codeOf: the code a client receives, as error masking decides it', () => {
  it('keeps a code already on the error', () => {
    expect(codeOf(new GraphQLError('x', { extensions: { code: 'RATE_LIMITED' } }), 'F')).toBe('RATE_LIMITED');
  });

  it('takes a domain error code, and the database outage code', () => {
    const domain = new GraphQLError('x', { originalError: new AppError('NOT_FOUND', 'no such thing') });
    expect(codeOf(domain, 'F')).toBe('NOT_FOUND');
    const outage = new GraphQLError('x', {
      originalError: new DatabaseUnavailableError('statement timeout'),
    });
    expect(codeOf(outage, 'F')).toBe('DATABASE_UNAVAILABLE');
  });

  it('says INTERNAL for anything else thrown, and the fallback for GraphQL errors without a code', () => {
    expect(codeOf(new GraphQLError('x', { originalError: new TypeError('bug') }), 'F')).toBe('INTERNAL');
    expect(codeOf(new GraphQLError('Cannot query field'), 'GRAPHQL_VALIDATION_FAILED')).toBe(
      'GRAPHQL_VALIDATION_FAILED',
    );
  });
});

describe('surfaceOf: where an operation came in', () => {
  const request = (path: string) => new Request(`http://localhost${path}`, { method: 'POST' });

  it('names each transport from its initial context', () => {
    expect(surfaceOf({ socket: {}, request: request('/graphql') })).toBe('graphql-ws');
    expect(surfaceOf({ request: request('/graphql') })).toBe('graphql');
    expect(surfaceOf({ request: request('/graphql/stream') })).toBe('graphql');
    expect(surfaceOf({ request: request('/mcp') })).toBe('mcp');
    expect(surfaceOf({ request: request('/api/tools/search-by-symbol') })).toBe('rest');
    expect(surfaceOf({ request: request('/') })).toBe('stdio');
    expect(surfaceOf({})).toBe('stdio');
  });
});
