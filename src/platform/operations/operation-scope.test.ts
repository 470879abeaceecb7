import { buildSchema as buildSdl, type GraphQLSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { operationScopes, scopeLabel, scopeMeta, scopeOfDocument, toolScopes } from './operation-scope.ts';

/** A schema whose `purge` field needs `admin` (as `requiresScope('admin')` marks it). */
function schema(): GraphQLSchema {
  const built = buildSdl(`
    type Query { price(symbol: String!): Float, status: String }
    type Mutation { submit(query: String!): String, purge: Boolean }
  `);
  const purge = built.getMutationType()!.getFields().purge!;
  Object.assign(purge, { extensions: { scope: 'admin' } });
  return built;
}

const DOCUMENT = `
  query Run($query: String!) { price(symbol: $query) }
  mutation Submit($query: String!) { submit(query: $query) }
  mutation Purge { purge }`;

describe('operation scopes', () => {
  it('gives each operation the highest scope of its root fields, anonymous ones by index', () => {
    expect([...operationScopes(schema(), DOCUMENT)]).toEqual([
      ['Run', 'read'],
      ['Submit', 'write'],
      ['Purge', 'admin'],
    ]);
    expect([...operationScopes(schema(), '{ status __typename }')]).toEqual([['#0', 'read']]);
    expect(scopeOfDocument(schema(), 'mutation { submit(query: "x") purge }')).toBe('admin');
    expect(() => scopeOfDocument(schema(), DOCUMENT)).toThrow(/one operation/);
  });

  it('labels a tool by the operation its defaults choose, and each argument value that needs another', () => {
    const scopes = toolScopes(
      schema(),
      {
        name: 'run',
        document: DOCUMENT,
        operationName: (args) => (args.purge ? 'Purge' : args.mode === 'later' ? 'Submit' : 'Run'),
      },
      {
        query: z.string(),
        mode: z.enum(['now', 'again', 'later']).default('now'),
        purge: z.boolean().optional(),
        runAsync: z.boolean().default(false),
      },
      (name) => (name === 'runAsync' ? 'run_async' : name),
    );
    expect(scopes).toEqual({
      base: 'read',
      when: [
        { scope: 'write', argument: 'mode', value: 'later' },
        { scope: 'admin', argument: 'purge', value: true },
      ],
    });
    expect(scopeLabel(scopes)).toBe('`read`; `write` with `mode: "later"`; `admin` with `purge: true`');
    expect(scopeMeta(scopes)).toEqual({
      'vigil/scope': 'read',
      'vigil/scope-when': [
        { scope: 'write', arguments: { mode: 'later' } },
        { scope: 'admin', arguments: { purge: true } },
      ],
    });
  });

  it('labels a tool of one operation with its scope alone, and refuses a chooser that picks none', () => {
    const single = toolScopes(schema(), { name: 'submit', document: 'mutation { submit(query: "x") }' }, {});
    expect(single).toEqual({ base: 'write', when: [] });
    expect(scopeLabel(single)).toBe('`write`');
    expect(scopeMeta(single)).toEqual({ 'vigil/scope': 'write' });
    expect(() =>
      toolScopes(schema(), { name: 'bad', document: DOCUMENT, operationName: () => 'Nope' }, {}),
    ).toThrow(/tool bad: its chooser picked Nope/);
  });
});
