import { describe, expect, it } from 'vitest';
import { type SessionEntry, SessionTable } from './mcp-sessions.ts';

/** Adds a session the way the endpoint does: reserve, add, settle. */
function open(table: SessionTable<SessionEntry>, id: string, clientId: string, lastActive: number, open = 0) {
  const admission = table.reserve(clientId);
  expect(admission.ok).toBe(true);
  const session = { id, clientId, lastActive, open };
  table.add(session);
  table.settle(clientId);
  return { session, evicted: admission.ok ? admission.evicted : undefined };
}

describe('SessionTable', () => {
  it('at the total bound, replaces the least recently active idle session of the biggest holder', () => {
    const table = new SessionTable<SessionEntry>(5, 4);
    open(table, 'a1', 'a', 10, 1); // busy: never replaced, though the oldest
    open(table, 'a2', 'a', 30);
    open(table, 'a3', 'a', 20);
    open(table, 'b1', 'b', 5);
    open(table, 'b2', 'b', 6);
    expect(open(table, 'c1', 'c', 40).evicted?.id).toBe('a3');
    // Now A and B hold two each: between equals, the one idle longer goes.
    expect(open(table, 'd1', 'd', 50).evicted?.id).toBe('b1');
  });

  it("between equals, takes the newcomer's own session first", () => {
    const table = new SessionTable<SessionEntry>(2, 2);
    open(table, 'a1', 'a', 1);
    open(table, 'b1', 'b', 2);
    expect(open(table, 'b2', 'b', 3).evicted?.id).toBe('b1');
  });

  it('refuses only when no session is idle; at its own bound a client replaces only its own', () => {
    const table = new SessionTable<SessionEntry>(3, 2);
    open(table, 'a1', 'a', 1, 1);
    open(table, 'a2', 'a', 2, 1);
    expect(table.reserve('a')).toMatchObject({
      ok: false,
      message: expect.stringMatching(/for this client/),
    });
    open(table, 'b1', 'b', 3, 1);
    expect(table.reserve('c')).toMatchObject({ ok: false, message: expect.stringMatching(/all busy/) });
    table.get('a1')!.open = 0;
    expect(open(table, 'c1', 'c', 4).evicted?.id).toBe('a1');
  });
});
