import { z } from 'zod';
import { enumName } from '../platform/graphql/enum-values.ts';
import type { ToolArgs, ToolDefinition } from '../platform/operations/tool.ts';
import { DEFAULT_ANALYTICS_DAYS } from './session.analytics.ts';
import { SESSION_LIMITS, SESSION_TYPES } from './session.rules.ts';
import { DEFAULT_LIST_LIMIT } from './session.service.ts';
import { DEFAULT_RECENT_QUERIES } from './session-types.graphql.ts';
import {
  ARCHIVE_SESSION,
  CREATE_SESSION,
  EXTEND_SESSION,
  GET_RESULT,
  LIST_SESSIONS,
  SESSION_ANALYTICS,
  SESSION_INFO,
  STORE_RESULT,
  UPDATE_CONTEXT,
} from './sessions.documents.ts';
import {
  analyticsSchema,
  analyticsWire,
  isoTime,
  lifetimeSchema,
  lifetimeWire,
  type SessionData,
  sessionInfoSchema,
  sessionInfoWire,
  sessionSummarySchema,
  sessionWire,
} from './sessions.wire.ts';

/**
 * The session tools (MCP and /mcp/tools/<name>) with the interface's names, arguments and
 * defaults, each running its GraphQL document as the caller. Unknown sessions are NOT_FOUND; an
 * expired or archived one is SESSION_EXPIRED or SESSION_ARCHIVED for anything but reading.
 */

type Json = Record<string, unknown>;
type Change = { session: SessionData } & Json;

const sessionId = {
  schema: z.string().min(1).max(128),
  description: 'The session id create-analysis-session returned',
};
const sessionType = z.enum(SESSION_TYPES);
const hours = (field: string) =>
  z.number().positive(`${field} must be a positive number of hours`).max(SESSION_LIMITS.requestHours);
const write = { readOnlyHint: false, destructiveHint: false } as const;
const success = { status: z.literal('success') };

const createSession: ToolDefinition<{ createAnalysisSession: Change }> = {
  name: 'create-analysis-session',
  title: 'Create an analysis session',
  description:
    'Groups assets and the queries you make about them (pass the returned session_id as session_id to ' +
    'search-by-symbol, search-by-coin and execute-fk-dsl). A ttl_hours past the server maximum is granted up to it ' +
    'and reported (ttl_capped).',
  document: CREATE_SESSION,
  arguments: {
    assets: {
      schema: z.array(z.string()).min(1).max(SESSION_LIMITS.assets),
      description: 'Symbols: AAPL, BTC/USDT',
    },
    sessionType: { schema: sessionType, description: SESSION_TYPES.join(', ') },
    userId: {
      schema: z.string().min(1).max(SESSION_LIMITS.userIdLength),
      description: 'Your user id (optional)',
    },
    ttlHours: { schema: hours('ttl_hours'), description: 'Time-to-live in hours (default 24)' },
    tags: { schema: z.array(z.string()).max(SESSION_LIMITS.tags), description: 'Tags (optional)' },
  },
  variables: (args) => ({ ...args, sessionType: enumName(String(args.sessionType)) }),
  result: ({ createAnalysisSession: c }) => {
    const s = sessionWire(c.session);
    return { status: 'success' as const, ...s, ...lifetimeWire(c) };
  },
  outputSchema: sessionSummarySchema.extend(lifetimeSchema.shape).extend(success),
  annotations: { ...write, idempotentHint: false },
};

const sessionInfo: ToolDefinition<{ analysisSession: SessionData }> = {
  name: 'get-session-info',
  title: 'Get an analysis session',
  description:
    'A session with its context, named results, counts and most recent query records, in any state ' +
    '(session_state says active, expired or archived).',
  document: SESSION_INFO,
  arguments: {
    sessionId,
    recentQueries: {
      schema: z.number().int().min(0).max(SESSION_LIMITS.recentQueries),
      default: DEFAULT_RECENT_QUERIES,
      description: `Query records to include, newest first (0 to ${SESSION_LIMITS.recentQueries})`,
    },
  },
  result: (data) => sessionInfoWire(data.analysisSession),
  outputSchema: sessionInfoSchema,
  annotations: { readOnlyHint: true },
};

const listSessions: ToolDefinition<{
  analysisSessions: { totalSessions: number; nextCursor: string | null; sessions: SessionData[] };
}> = {
  name: 'list-sessions',
  title: 'List analysis sessions',
  description:
    'Your sessions, newest first, optionally of one user_id; archived ones only with include_archived. Pass ' +
    'next_cursor as cursor for the next page.',
  document: LIST_SESSIONS,
  arguments: {
    userId: {
      schema: z.string().min(1).max(SESSION_LIMITS.userIdLength),
      description: 'Only sessions of this user id',
    },
    includeArchived: { schema: z.boolean(), default: false, description: 'Also archived sessions' },
    limit: {
      schema: z.number().int().min(1).max(SESSION_LIMITS.listLimit),
      default: DEFAULT_LIST_LIMIT,
      description: `Sessions per page, 1 to ${SESSION_LIMITS.listLimit}`,
    },
    cursor: { schema: z.string().min(1).max(1_000), description: 'From the previous page' },
  },
  result: ({ analysisSessions: page }, args: ToolArgs) => ({
    status: 'success' as const,
    user_id: (args.userId as string | undefined) ?? null,
    total_sessions: page.totalSessions,
    sessions: page.sessions.map(sessionWire),
    next_cursor: page.nextCursor,
  }),
  outputSchema: z.object({
    ...success,
    user_id: z.string().nullable(),
    total_sessions: z.number().int().describe('Sessions the filter matches, on all pages'),
    sessions: z.array(sessionSummarySchema),
    next_cursor: z.string().nullable(),
  }),
  annotations: { readOnlyHint: true },
};

const extendSession: ToolDefinition<{ extendAnalysisSession: Change }> = {
  name: 'extend-session',
  title: 'Extend an analysis session',
  description:
    'Adds hours to the current expiry. A session lives at most the server maximum (SESSION_MAX_TTL_HOURS, 168 by ' +
    'default) from its creation: more is granted up to that and reported (ttl_capped). Expired or archived sessions ' +
    'cannot be extended.',
  document: EXTEND_SESSION,
  arguments: {
    sessionId,
    hours: { schema: hours('hours'), default: 24, description: 'Hours to add (default 24)' },
  },
  result: ({ extendAnalysisSession: c }) => {
    const s = sessionWire(c.session);
    return {
      status: 'success' as const,
      session_id: s.session_id,
      expires_at: s.expires_at,
      time_remaining_hours: s.time_remaining_hours,
      ttl_hours: s.ttl_hours,
      ...lifetimeWire(c),
    };
  },
  outputSchema: z
    .object({
      ...success,
      session_id: z.string(),
      expires_at: isoTime,
      time_remaining_hours: z.number(),
      ttl_hours: z.number(),
    })
    .extend(lifetimeSchema.shape),
  annotations: { ...write, idempotentHint: false },
};

const analytics: ToolDefinition<{ sessionAnalytics: Json }> = {
  name: 'get-session-analytics',
  title: 'Analysis session analytics',
  description:
    'Statistics of your sessions created in the last `days` days: counts by state, queries, durations, abandonment ' +
    '(ended sessions that tracked no query), top assets and tags, query types and session types.',
  document: SESSION_ANALYTICS,
  arguments: {
    userId: {
      schema: z.string().min(1).max(SESSION_LIMITS.userIdLength),
      description: 'Only sessions of this user id',
    },
    sessionType: {
      schema: sessionType,
      description: `Only sessions of this type: ${SESSION_TYPES.join(', ')}`,
    },
    days: {
      schema: z.number().int().min(1).max(SESSION_LIMITS.analyticsDays),
      default: DEFAULT_ANALYTICS_DAYS,
      description: 'Days back from now (default 30)',
    },
  },
  variables: (args) => ({
    ...args,
    ...(args.sessionType ? { sessionType: enumName(String(args.sessionType)) } : {}),
  }),
  result: (data) => analyticsWire(data.sessionAnalytics),
  outputSchema: analyticsSchema,
  annotations: { readOnlyHint: true },
};

const updateContext: ToolDefinition<{ updateSessionContext: Json }> = {
  name: 'update-session-context',
  title: 'Update session context',
  description: `Sets and removes context keys of a session (at most ${SESSION_LIMITS.contextKeys} keys).`,
  document: UPDATE_CONTEXT,
  arguments: {
    sessionId,
    set: { schema: z.record(z.string(), z.unknown()), description: 'Keys to set to their values' },
    remove: { schema: z.array(z.string()), description: 'Keys to remove' },
  },
  result: ({ updateSessionContext: s }) => ({
    status: 'success' as const,
    session_id: s.id as string,
    context: s.context as Json,
    last_accessed_at: s.lastAccessedAt as string,
  }),
  outputSchema: z.object({
    ...success,
    session_id: z.string(),
    context: z.record(z.string(), z.unknown()),
    last_accessed_at: isoTime,
  }),
  annotations: { ...write, idempotentHint: true },
};

const storeResult: ToolDefinition<{ storeSessionResult: Json }> = {
  name: 'store-session-result',
  title: 'Store a session result',
  description: 'Stores an intermediate result in a session under a name, replacing what was there.',
  document: STORE_RESULT,
  arguments: {
    sessionId,
    name: { schema: z.string().min(1).max(SESSION_LIMITS.resultNameLength), description: 'Result name' },
    value: {
      schema: z.unknown().refine((v) => v !== undefined, 'value is required'),
      description: 'Any JSON value',
    },
  },
  result: ({ storeSessionResult: s }) => ({
    status: 'success' as const,
    session_id: s.id as string,
    result_names: s.resultNames as string[],
    last_accessed_at: s.lastAccessedAt as string,
  }),
  outputSchema: z.object({
    ...success,
    session_id: z.string(),
    result_names: z.array(z.string()),
    last_accessed_at: isoTime,
  }),
  annotations: { ...write, idempotentHint: true },
};

const getResult: ToolDefinition<{ sessionResult: unknown }> = {
  name: 'get-session-result',
  title: 'Get a session result',
  description: 'One named intermediate result of a session (NOT_FOUND when it has none by that name).',
  document: GET_RESULT,
  arguments: {
    sessionId,
    name: { schema: z.string().min(1).max(SESSION_LIMITS.resultNameLength), description: 'Result name' },
  },
  result: (data, args) => ({
    status: 'success' as const,
    session_id: args.sessionId as string,
    name: args.name as string,
    value: data.sessionResult,
  }),
  outputSchema: z.object({ ...success, session_id: z.string(), name: z.string(), value: z.unknown() }),
  annotations: { readOnlyHint: true },
};

const archiveSession: ToolDefinition<{ archiveAnalysisSession: SessionData }> = {
  name: 'archive-session',
  title: 'Archive an analysis session',
  description: 'Archives a session now: it stays readable and is deleted after the retention period.',
  document: ARCHIVE_SESSION,
  arguments: { sessionId },
  result: ({ archiveAnalysisSession: s }) => ({ status: 'success' as const, ...sessionWire(s) }),
  outputSchema: sessionSummarySchema.extend(success),
  annotations: { ...write, idempotentHint: true },
};

export const sessionsTools: readonly ToolDefinition<never>[] = [
  createSession,
  sessionInfo,
  listSessions,
  extendSession,
  analytics,
  updateContext,
  storeResult,
  getResult,
  archiveSession,
] as readonly ToolDefinition<never>[];
