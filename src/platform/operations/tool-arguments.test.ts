import { describe, expect, it } from 'vitest';
import { argumentNames, definitionArguments, resolveAliases, wireName } from './tool-arguments.ts';

describe('tool argument spelling', () => {
  it('spells a camelCase name in snake_case and leaves other names alone', () => {
    expect(wireName('taskId')).toBe('task_id');
    expect(wireName('ttlHours')).toBe('ttl_hours');
    expect(wireName('includeArchived')).toBe('include_archived');
    expect(wireName('week52High')).toBe('week52_high');
    expect(wireName('alert_id')).toBe('alert_id');
    expect(wireName('async')).toBe('async');
  });

  const names = argumentNames('get-task-status', ['taskId', 'limit']);

  it('accepts the earlier spelling as an alias of the wire name', () => {
    expect([...names.aliases]).toEqual([['taskId', 'task_id']]);
    expect(resolveAliases({ taskId: 't1', limit: 2 }, names)).toEqual({
      ok: true,
      value: { task_id: 't1', limit: 2 },
    });
    expect(resolveAliases({ task_id: 't1', taskId: 't1' }, names)).toEqual({
      ok: true,
      value: { task_id: 't1' },
    });
    expect(definitionArguments({ task_id: 't1', limit: 2 }, names)).toEqual({ taskId: 't1', limit: 2 });
  });

  it('refuses one argument under both spellings with two values, naming both', () => {
    const clash = resolveAliases({ task_id: 't1', taskId: 't2' }, names);
    expect(clash).toMatchObject({ ok: false, field: 'task_id' });
    expect(!clash.ok && clash.message).toMatch(/^task_id and taskId name the same argument/);
  });

  it('passes anything that is no object to the schema, which refuses it', () => {
    expect(resolveAliases(null, names)).toEqual({ ok: true, value: null });
    expect(resolveAliases(['taskId'], names)).toEqual({ ok: true, value: ['taskId'] });
  });

  it('refuses a definition whose two arguments share one wire name', () => {
    expect(() => argumentNames('broken', ['sessionId', 'session_id'])).toThrow(
      /arguments sessionId and session_id are both spelled session_id/,
    );
  });
});
