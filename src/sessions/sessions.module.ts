import { defineModule } from '../platform/module.ts';
import * as sessionTypesGraphql from './session-types.graphql.ts';
import type { SessionsDeps } from './sessions.deps.ts';
import * as sessionsGraphql from './sessions.graphql.ts';
import { upkeepJob } from './sessions.jobs.ts';
import * as sessionsTables from './sessions.sql.ts';
import { sessionsTools } from './sessions.tools.ts';

/**
 * Analysis sessions: assets and queries grouped with context, named results, history and a
 * time-to-live, owned by their creator. The data tools reach it only through the recorder
 * (`toolCalls`) the composition root hands them. Surfaces: GraphQL queries and mutations and the
 * session tools (MCP and /mcp/tools/<name>), all running the same GraphQL documents.
 */
export const sessionsModule = defineModule<SessionsDeps>({
  name: 'sessions',
  graphql: [sessionTypesGraphql, sessionsGraphql],
  tables: [sessionsTables],
  errors: {
    SESSION_EXPIRED: {
      status: 404,
      description:
        'The session is past its expiry: it can be read (get-session-info, list-sessions) but not used, extended or changed.',
    },
    SESSION_ARCHIVED: {
      status: 404,
      description: 'The session is archived: it can be read but not used, extended or changed.',
    },
    TOO_MANY_SESSIONS: {
      status: 429,
      description:
        'The owner already has the most sessions that are not archived (`details.limit`, 1,000); archive some or let them expire.',
    },
    SESSION_ANALYTICS_DISABLED: {
      status: 503,
      description: 'Session analytics are turned off on this server (SESSION_ENABLE_ANALYTICS=false).',
    },
  },
  tools: sessionsTools,
  jobs: [
    {
      job: upkeepJob,
      handler: (deps) => () => deps.sessions.upkeep.runDue(),
      cron: { expression: '* * * * *', data: {} },
    },
  ],
});
