import { builder } from '../builder.ts';
import { DEFAULT_ANALYTICS_DAYS } from './session.analytics.ts';
import { SESSION_LIMITS } from './session.rules.ts';
import { DEFAULT_LIST_LIMIT } from './session.service.ts';
import {
  AnalyticsRef,
  SessionChangeRef,
  SessionPageRef,
  SessionRef,
  SessionTypeEnum,
} from './session-types.graphql.ts';
import { sessionsDeps } from './sessions.deps.ts';

/**
 * Analysis sessions: queries and mutations as the caller's principal (a session belongs to whoever
 * created it; anyone else's is NOT_FOUND, as an unknown id is; admins reach every owner's). The data
 * tools (`searchBySymbol`, `searchByCoin`, `executeFkDsl`) record a query in a session when given
 * its `sessionId`.
 */

const DEFAULT_EXTEND_HOURS = 24;
const ID_DOC = 'The session id createAnalysisSession returned.';

builder.queryField('analysisSession', (t) =>
  t.field({
    type: SessionRef,
    description:
      'One session in any state (active, expired or archived): the `get-session-info` tool. Reading it does not ' +
      'count as use.',
    args: { id: t.arg.id({ required: true, description: ID_DOC }) },
    resolve: (_root, { id }, ctx) => sessionsDeps(ctx).sessions.store.get(ctx.viewer.principal, String(id)),
  }),
);

builder.queryField('analysisSessions', (t) =>
  t.field({
    type: SessionPageRef,
    description:
      "The caller's sessions, newest first (the `list-sessions` tool). Expired sessions are listed until the cleanup " +
      'archives them; archived ones only with `includeArchived`.',
    args: {
      userId: t.arg.string({ description: 'Only the sessions created with this user id.' }),
      includeArchived: t.arg.boolean({ defaultValue: false, description: 'Also archived sessions.' }),
      limit: t.arg.int({
        defaultValue: DEFAULT_LIST_LIMIT,
        description: `Sessions per page, 1 to ${SESSION_LIMITS.listLimit}.`,
      }),
      cursor: t.arg.string({ description: 'From the previous page’s `nextCursor`.' }),
    },
    resolve: (_root, args, ctx) => sessionsDeps(ctx).sessions.store.list(ctx.viewer.principal, args),
  }),
);

builder.queryField('sessionResult', (t) =>
  t.field({
    type: 'JSON',
    nullable: true,
    description: 'One named result stored in a session; NOT_FOUND when it has none by that name.',
    args: {
      id: t.arg.id({ required: true, description: ID_DOC }),
      name: t.arg.string({ required: true, description: 'The result name.' }),
    },
    resolve: async (_root, { id, name }, ctx) =>
      (await sessionsDeps(ctx).sessions.store.result(ctx.viewer.principal, String(id), name)).value,
  }),
);

builder.queryField('sessionAnalytics', (t) =>
  t.field({
    type: AnalyticsRef,
    description:
      'Statistics of the sessions created in the last `days` days (the `get-session-analytics` tool). ' +
      'SESSION_ANALYTICS_DISABLED when SESSION_ENABLE_ANALYTICS is false.',
    args: {
      userId: t.arg.string({ description: 'Only sessions of this user id.' }),
      sessionType: t.arg({ type: SessionTypeEnum, description: 'Only sessions of this type.' }),
      days: t.arg.int({
        defaultValue: DEFAULT_ANALYTICS_DAYS,
        description: `Days back from now, 1 to ${SESSION_LIMITS.analyticsDays}.`,
      }),
    },
    resolve: (_root, args, ctx) => sessionsDeps(ctx).sessions.analytics.analytics(ctx.viewer.principal, args),
  }),
);

builder.mutationField('createAnalysisSession', (t) =>
  t.field({
    type: SessionChangeRef,
    description:
      'Creates a session (the `create-analysis-session` tool). A ttlHours past SESSION_MAX_TTL_HOURS is granted up ' +
      'to it and reported (`capped`).',
    args: {
      assets: t.arg.stringList({
        required: true,
        description: `Symbols, 1 to ${SESSION_LIMITS.assets} (AAPL, BTC/USDT); upper-cased, duplicates dropped.`,
      }),
      sessionType: t.arg({ type: SessionTypeEnum, required: true, description: 'What it is for.' }),
      userId: t.arg.string({ description: `Your user id, up to ${SESSION_LIMITS.userIdLength} characters.` }),
      tags: t.arg.stringList({ description: `Up to ${SESSION_LIMITS.tags} tags.` }),
      ttlHours: t.arg.float({
        description: 'Time-to-live in hours (default SESSION_DEFAULT_TTL_HOURS, 24).',
      }),
    },
    resolve: (_root, args, ctx) => sessionsDeps(ctx).sessions.store.create(ctx.viewer.principal, args),
  }),
);

builder.mutationField('extendAnalysisSession', (t) =>
  t.field({
    type: SessionChangeRef,
    description:
      'Adds `hours` to the current expiry (the `extend-session` tool). A session lives at most ' +
      'SESSION_MAX_TTL_HOURS from its creation: more is granted up to that and reported (`capped`). An expired ' +
      'or archived session cannot be extended (SESSION_EXPIRED, SESSION_ARCHIVED).',
    args: {
      id: t.arg.id({ required: true, description: ID_DOC }),
      hours: t.arg.float({ defaultValue: DEFAULT_EXTEND_HOURS, description: 'Hours to add (default 24).' }),
    },
    resolve: (_root, { id, hours }, ctx) =>
      sessionsDeps(ctx).sessions.store.extend(
        ctx.viewer.principal,
        String(id),
        hours ?? DEFAULT_EXTEND_HOURS,
      ),
  }),
);

builder.mutationField('updateSessionContext', (t) =>
  t.field({
    type: SessionRef,
    description: `Sets and removes context keys (at most ${SESSION_LIMITS.contextKeys} keys, ${SESSION_LIMITS.contextBytes / 1024} KB as JSON).`,
    args: {
      id: t.arg.id({ required: true, description: ID_DOC }),
      set: t.arg({ type: 'JSON', description: 'An object of keys to set to their values.' }),
      remove: t.arg.stringList({ description: 'Keys to remove.' }),
    },
    resolve: (_root, { id, set, remove }, ctx) =>
      sessionsDeps(ctx).sessions.store.updateContext(ctx.viewer.principal, String(id), set, remove),
  }),
);

builder.mutationField('storeSessionResult', (t) =>
  t.field({
    type: SessionRef,
    description:
      `Stores a result under a name, replacing what was there (at most ${SESSION_LIMITS.results} results, ` +
      `${SESSION_LIMITS.resultBytes / 1024} KB each, ${SESSION_LIMITS.resultsBytes / 1024 / 1024} MB in all).`,
    args: {
      id: t.arg.id({ required: true, description: ID_DOC }),
      name: t.arg.string({
        required: true,
        description: 'Result name: letters, digits, _ . : - (up to 100).',
      }),
      value: t.arg({ type: 'JSON', required: true, description: 'Any JSON value.' }),
    },
    resolve: (_root, { id, name, value }, ctx) =>
      sessionsDeps(ctx).sessions.store.storeResult(ctx.viewer.principal, String(id), name, value),
  }),
);

builder.mutationField('archiveAnalysisSession', (t) =>
  t.field({
    type: SessionRef,
    description: 'Archives a session now: readable, no longer usable; deleted after SESSION_RETENTION_DAYS.',
    args: { id: t.arg.id({ required: true, description: ID_DOC }) },
    resolve: (_root, { id }, ctx) =>
      sessionsDeps(ctx).sessions.store.archive(ctx.viewer.principal, String(id)),
  }),
);
