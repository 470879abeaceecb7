import { describe, expect, it } from 'vitest';
import { PreparedStatements, sqlLiteral } from './prepared-statements.ts';

describe('sqlLiteral', () => {
  it('writes each value as the untyped text node-postgres would bind', () => {
    expect(sqlLiteral(null)).toBe('null');
    expect(sqlLiteral(undefined)).toBe('null');
    expect(sqlLiteral('alerts.deliver')).toBe("'alerts.deliver'");
    expect(sqlLiteral(64)).toBe("'64'");
    expect(sqlLiteral(true)).toBe("'true'");
    expect(sqlLiteral(new Date('2026-01-02T03:04:05.000Z'))).toBe("'2026-01-02T03:04:05.000Z'");
    expect(sqlLiteral({ a: "it's" })).toBe(`'{"a":"it''s"}'`);
  });

  it('doubles every quote and leaves backslashes alone (standard conforming strings)', () => {
    expect(sqlLiteral("'); drop table x; --")).toBe("'''); drop table x; --'");
    expect(sqlLiteral('a\\b')).toBe("'a\\b'");
    expect(sqlLiteral("''")).toBe("''''''");
  });

  it('writes arrays in Postgres array syntax, each element quoted', () => {
    expect(sqlLiteral(['a', 'b'])).toBe(`'{"a","b"}'`);
    expect(sqlLiteral(['x,y', 'q"uote', 'back\\slash', "it's", null])).toBe(
      `'{"x,y","q\\"uote","back\\\\slash","it''s",NULL}'`,
    );
    expect(sqlLiteral([])).toBe("'{}'");
  });
});

describe('PreparedStatements', () => {
  /** A connection that answers `show`, records what it is sent, and fails what `fails` matches. */
  function connection(conforming = 'on', fails: RegExp | null = null) {
    const sent: string[] = [];
    const run = async (text: string) => {
      sent.push(text);
      if (fails?.test(text)) throw Object.assign(new Error('refused'), { code: 'XX000' });
      if (text.startsWith('show ')) return [{ standard_conforming_strings: conforming }];
      return [{ ok: text }];
    };
    return { sent, run };
  }

  it('prepares a statement once and executes it by name with its values', async () => {
    const c = connection();
    const prepared = new PreparedStatements();
    const text = 'select * from t where a = $1 and b = $2';
    await prepared.run(c.run, text, ['x', 1]);
    await prepared.run(c.run, text, ["y'", null]);
    expect(c.sent).toEqual([
      'show standard_conforming_strings',
      `prepare vigil_jobs_1 as ${text}`,
      "execute vigil_jobs_1('x', '1')",
      "execute vigil_jobs_1('y''', null)",
    ]);
  });

  it('prepares nothing unless strings are standard conforming', async () => {
    const c = connection('off');
    const prepared = new PreparedStatements();
    expect(await prepared.run(c.run, 'select $1', ['x'])).toBeUndefined();
    expect(c.sent).toEqual(['show standard_conforming_strings']);
  });

  it('answers undefined (run it unprepared) when a statement cannot be prepared, and tries again later', async () => {
    const c = connection('on', /^prepare/);
    const prepared = new PreparedStatements();
    expect(await prepared.run(c.run, 'select $1', ['x'])).toBeUndefined();
    expect(await prepared.run(c.run, 'select $1', ['x'])).toBeUndefined();
    expect(c.sent.filter((t) => t.startsWith('prepare'))).toHaveLength(2);
  });
});
