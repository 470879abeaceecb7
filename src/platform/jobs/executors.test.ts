import { PgDialect } from 'drizzle-orm/pg-core';
import { describe, expect, it } from 'vitest';
import { toDrizzleSql } from './executors.ts';

const dialect = new PgDialect();

describe('toDrizzleSql', () => {
  it('binds every $n as a parameter, in order of appearance, repeating reused ones', () => {
    const query = dialect.sqlToQuery(
      toDrizzleSql('select $1::int, $2, right($1, 1), $10', [1, 'a', 3, 4, 5, 6, 7, 8, 9, 'ten']),
    );
    expect(query.sql).toBe('select $1::int, $2, right($3, 1), $4');
    expect(query.params).toEqual([1, 'a', 1, 'ten']);
  });

  it('sends dates and objects as text, the way node-postgres does', () => {
    const at = new Date('2026-01-02T03:04:05.000Z');
    const query = dialect.sqlToQuery(
      toDrizzleSql('insert into t values ($1, $2, $3, $4)', [at, { a: 1 }, undefined, [1, 2]]),
    );
    expect(query.params).toEqual(['2026-01-02T03:04:05.000Z', '{"a":1}', null, [1, 2]]);
  });

  it('refuses a placeholder without a value', () => {
    expect(() => toDrizzleSql('select $2', ['only one'])).toThrow(/\$2 but 1 values/);
  });
});
