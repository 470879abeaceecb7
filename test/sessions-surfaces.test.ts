/**
 * Analysis sessions through the compatibility tool routes (`POST /mcp/tools/<name>`) over real
 * HTTP, as two principals with keys: the answers keep the earlier snake_case shapes, queries made
 * with a `sessionId` land in that session's history, the max-TTL rule caps an extension and says
 * so, an archived session stays readable but cannot be used, and one principal's sessions are
 * NOT_FOUND to another (admins see every owner's).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, bearer, type IssuedKey, issueKey } from './support/access.ts';
import { createTestApp, type TestApp } from './support/app.ts';

// biome-ignore lint/suspicious/noExplicitAny: JSON answers are checked by the expectations, not by types.
type Json = any;

const HOUR = 3_600_000;

describe('analysis sessions over the tool routes', () => {
  let t: TestApp;
  const keys = {} as Record<'owner' | 'other' | 'reader', IssuedKey>;

  beforeAll(async () => {
    t = await createTestApp({
      listen: true,
      env: { AUTH_REQUIRED: 'true', ADMIN_API_KEY: ADMIN_KEY, RATE_LIMIT_MAX: '1000' },
    });
    keys.owner = await issueKey(t.app, 'sessions owner', ['WRITE']);
    keys.other = await issueKey(t.app, 'someone else', ['WRITE']);
    keys.reader = await issueKey(t.app, 'read only', ['READ']);
  });
  afterAll(async () => {
    await t?.close();
  });

  /** Calls `/mcp/tools/<name>` as `key` (the owner unless told). */
  async function call(name: string, args: Record<string, unknown>, key = keys.owner.secret) {
    const response = await fetch(`${t.url}/mcp/tools/${name}`, {
      method: 'POST',
      headers: { ...bearer(key), 'content-type': 'application/json' },
      body: JSON.stringify(args),
    });
    const text = await response.text();
    return { status: response.status, text, body: JSON.parse(text) as Json };
  }

  /** Asserts the route's error body: status, code, and the message repeated as `detail`. */
  function expectError(answer: { status: number; text: string; body: Json }, status: number, code: string) {
    expect(answer.status, answer.text).toBe(status);
    expect(answer.body.error.code, answer.text).toBe(code);
    expect(answer.body.detail).toBe(answer.body.error.message);
  }

  const newSession = async (key = keys.owner.secret) => {
    const created = await call(
      'create-analysis-session',
      { assets: ['AAPL', 'MSFT'], sessionType: 'equity', userId: 'u1', tags: ['t'] },
      key,
    );
    expect(created.status, created.text).toBe(200);
    return created.body.session_id as string;
  };

  describe('as one principal', () => {
    let sessionId: string;

    it('creates a session with the default time-to-live', async () => {
      const before = Date.now();
      const created = await call('create-analysis-session', {
        assets: ['AAPL', 'MSFT'],
        sessionType: 'equity',
        userId: 'u1',
        tags: ['t'],
      });
      expect(created.status, created.text).toBe(200);
      expect(created.body).toMatchObject({
        status: 'success',
        type: 'equity',
        user_id: 'u1',
        assets: ['AAPL', 'MSFT'],
        tags: ['t'],
        session_state: 'active',
        ttl_hours: 24,
        ttl_capped: false,
        requested_hours: 24,
        granted_hours: 24,
        max_ttl_hours: 168,
        total_queries: 0,
      });
      expect(created.body.session_id).toEqual(expect.any(String));
      const createdAt = Date.parse(created.body.created_at);
      expect(createdAt).toBeGreaterThanOrEqual(before - 1_000);
      expect(Date.parse(created.body.expires_at) - createdAt).toBe(24 * HOUR);
      sessionId = created.body.session_id;
    });

    it('keeps context and named results', async () => {
      const context = await call('update-session-context', {
        sessionId,
        set: { horizon: '1y', risk: 'low' },
      });
      expect(context.status, context.text).toBe(200);
      expect(context.body).toMatchObject({
        status: 'success',
        session_id: sessionId,
        context: { horizon: '1y', risk: 'low' },
      });
      const removed = await call('update-session-context', { sessionId, remove: ['risk'] });
      expect(removed.body.context).toEqual({ horizon: '1y' });

      const stored = await call('store-session-result', {
        sessionId,
        name: 'screen',
        value: { top: ['AAPL'] },
      });
      expect(stored.status, stored.text).toBe(200);
      expect(stored.body).toMatchObject({
        status: 'success',
        session_id: sessionId,
        result_names: ['screen'],
      });
      const got = await call('get-session-result', { sessionId, name: 'screen' });
      expect(got.status, got.text).toBe(200);
      expect(got.body).toEqual({
        status: 'success',
        session_id: sessionId,
        name: 'screen',
        value: { top: ['AAPL'] },
      });
      expectError(await call('get-session-result', { sessionId, name: 'missing' }), 404, 'NOT_FOUND');
    });

    it('records the data tools called with its sessionId, newest first', async () => {
      const searched = await call('search-by-symbol', { symbol: 'AAPL', depth: 'quick', sessionId });
      expect(searched.status, searched.text).toBe(200);
      expect(searched.body.session_id).toBe(sessionId);
      const executed = await call('execute-fk-dsl', { query: 'EVALUATE AAPL: PRICE', sessionId });
      expect(executed.status, executed.text).toBe(200);

      const info = await call('get-session-info', { sessionId });
      expect(info.status, info.text).toBe(200);
      expect(info.body).toMatchObject({
        status: 'success',
        session_id: sessionId,
        total_queries: 2,
        query_type_counts: { 'search-by-symbol': 1, 'execute-fk-dsl': 1 },
        state: {
          context: { horizon: '1y' },
          intermediate_results: { screen: { top: ['AAPL'] } },
          history: { total_queries: 2 },
        },
      });
      expect(info.body.recent_queries.map((q: Json) => q.query_type)).toEqual([
        'execute-fk-dsl',
        'search-by-symbol',
      ]);
      expect(info.body.recent_queries.map((q: Json) => q.seq)).toEqual([2, 1]);
      expect(info.body.recent_queries[1]).toMatchObject({
        parameters: { symbol: 'AAPL', depth: 'quick' },
        symbols: ['AAPL'],
      });
      expect(info.body.state.history.recent_queries).toEqual(info.body.recent_queries);
    });

    it('caps an extension at SESSION_MAX_TTL_HOURS from creation and says so', async () => {
      const extended = await call('extend-session', { sessionId, hours: 1000 });
      expect(extended.status, extended.text).toBe(200);
      expect(extended.body).toMatchObject({
        status: 'success',
        session_id: sessionId,
        requested_hours: 1000,
        granted_hours: 144,
        ttl_capped: true,
        max_ttl_hours: 168,
        ttl_hours: 168,
      });
      // At the cap, a further extension grants nothing (and is still not an error).
      const again = await call('extend-session', { sessionId, hours: 1 });
      expect(again.body).toMatchObject({ granted_hours: 0, ttl_capped: true });
    });

    it('lists the sessions of a user id and counts them in the analytics', async () => {
      const other = await call('create-analysis-session', { assets: ['BTC/USDT'], sessionType: 'crypto' });
      expect(other.status, other.text).toBe(200);
      const listed = await call('list-sessions', { userId: 'u1' });
      expect(listed.status, listed.text).toBe(200);
      expect(listed.body).toMatchObject({ status: 'success', user_id: 'u1', total_sessions: 1 });
      expect(listed.body.sessions.map((s: Json) => s.session_id)).toEqual([sessionId]);
      const all = await call('list-sessions', {});
      expect(all.body.total_sessions).toBe(2);
      // Newest first.
      expect(all.body.sessions.map((s: Json) => s.session_id)).toEqual([other.body.session_id, sessionId]);

      const analytics = await call('get-session-analytics', {});
      expect(analytics.status, analytics.text).toBe(200);
      expect(analytics.body.status).toBe('success');
      expect(analytics.body.total_sessions).toBeGreaterThanOrEqual(1);
      expect(analytics.body.total_queries).toBeGreaterThanOrEqual(2);
    });

    it('archives: readable afterwards, no longer usable', async () => {
      const archived = await call('archive-session', { sessionId });
      expect(archived.status, archived.text).toBe(200);
      expect(archived.body).toMatchObject({
        status: 'success',
        session_id: sessionId,
        session_state: 'archived',
        is_archived: true,
      });

      const searched = await call('search-by-symbol', { symbol: 'AAPL', depth: 'quick', sessionId });
      expectError(searched, 404, 'SESSION_ARCHIVED');
      expect(searched.body.error.details).toMatchObject({ session_id: sessionId });
      expectError(await call('extend-session', { sessionId, hours: 1 }), 404, 'SESSION_ARCHIVED');
      expectError(
        await call('update-session-context', { sessionId, set: { a: 1 } }),
        404,
        'SESSION_ARCHIVED',
      );

      const info = await call('get-session-info', { sessionId });
      expect(info.status, info.text).toBe(200);
      expect(info.body).toMatchObject({ is_archived: true, session_state: 'archived', total_queries: 2 });
      expect(info.body.archived_at).toEqual(expect.any(String));

      const listed = await call('list-sessions', { userId: 'u1' });
      expect(listed.body.total_sessions).toBe(0);
      const withArchived = await call('list-sessions', { userId: 'u1', includeArchived: true });
      expect(withArchived.body.sessions.map((s: Json) => s.session_id)).toEqual([sessionId]);
    });

    it('answers 404 NOT_FOUND for an unknown session id', async () => {
      expectError(await call('get-session-info', { sessionId: 'no-such-session' }), 404, 'NOT_FOUND');
      expectError(await call('extend-session', { sessionId: 'no-such-session', hours: 1 }), 404, 'NOT_FOUND');
      const searched = await call('search-by-symbol', { symbol: 'AAPL', sessionId: 'no-such-session' });
      expectError(searched, 404, 'NOT_FOUND');
    });

    it('refuses invalid arguments with 422 naming the field', async () => {
      const badType = await call('create-analysis-session', { assets: ['AAPL'], sessionType: 'stocks' });
      expectError(badType, 422, 'INVALID_ARGUMENTS');
      expect(badType.body.error.details.field).toBe('session_type');
      const noAssets = await call('create-analysis-session', { assets: [], sessionType: 'equity' });
      expectError(noAssets, 422, 'INVALID_ARGUMENTS');
      expect(noAssets.body.error.details.field).toBe('assets');
      const badHours = await call('extend-session', { sessionId: 'x', hours: -1 });
      expectError(badHours, 422, 'INVALID_ARGUMENTS');
      expect(badHours.body.error.message).toMatch(/hours/);
    });
  });

  describe('between principals', () => {
    it("keeps another principal's session NOT_FOUND, also to a tracked query", async () => {
      const sessionId = await newSession();
      const other = keys.other.secret;
      expectError(await call('get-session-info', { sessionId }, other), 404, 'NOT_FOUND');
      const searched = await call('search-by-symbol', { symbol: 'AAPL', depth: 'quick', sessionId }, other);
      expectError(searched, 404, 'NOT_FOUND');
      expectError(await call('archive-session', { sessionId }, other), 404, 'NOT_FOUND');
      const listed = await call('list-sessions', {}, other);
      expect(listed.status, listed.text).toBe(200);
      expect(listed.body.sessions.map((s: Json) => s.session_id)).not.toContain(sessionId);

      // Nothing was recorded in the owner's session, which is still active.
      const info = await call('get-session-info', { sessionId });
      expect(info.body).toMatchObject({ total_queries: 0, session_state: 'active' });

      const asAdmin = await call('list-sessions', { userId: 'u1' }, ADMIN_KEY);
      expect(asAdmin.status, asAdmin.text).toBe(200);
      const seen = asAdmin.body.sessions.find((s: Json) => s.session_id === sessionId);
      expect(seen).toMatchObject({ session_id: sessionId, owner: expect.any(String) });
      const adminInfo = await call('get-session-info', { sessionId }, ADMIN_KEY);
      expect(adminInfo.status, adminInfo.text).toBe(200);
    });

    it('refuses a read-only key a new session with 403 FORBIDDEN', async () => {
      const created = await call(
        'create-analysis-session',
        { assets: ['AAPL'], sessionType: 'equity' },
        keys.reader.secret,
      );
      expectError(created, 403, 'FORBIDDEN');
    });
  });
});
