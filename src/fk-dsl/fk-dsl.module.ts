import { defineModule } from '../platform/module.ts';
import { FKDSL_ERRORS } from './errors.ts';
import type { FkDslDeps } from './fk-dsl.deps.ts';
import * as fkDslGraphql from './fk-dsl.graphql.ts';
import { cleanupJob, executeJob } from './fk-dsl.jobs.ts';
import { fkDslTools } from './fk-dsl.tools.ts';
import { fkDslCatalogTools } from './fk-dsl-catalog.tools.ts';
import * as fkDslCausalityGraphql from './fk-dsl-causality.graphql.ts';
import * as fkDslMacroGraphql from './fk-dsl-macro.graphql.ts';
import * as fkDslPlanGraphql from './fk-dsl-plan.graphql.ts';
import * as fkDslResultsGraphql from './fk-dsl-results.graphql.ts';
import * as fkDslUniversesGraphql from './fk-dsl-universes.graphql.ts';
import * as fkDslValuesGraphql from './fk-dsl-values.graphql.ts';
import { scanMarketPrompt } from './scan-market.mcp.ts';
import * as tasksTables from './tasks.sql.ts';

/** The FK-DSL query language: run, explain, and background tasks kept in the database. */
export const fkDslModule = defineModule<FkDslDeps>({
  name: 'fk-dsl',
  graphql: [
    fkDslValuesGraphql,
    fkDslCausalityGraphql,
    fkDslMacroGraphql,
    fkDslPlanGraphql,
    fkDslResultsGraphql,
    fkDslGraphql,
    fkDslUniversesGraphql,
  ],
  tables: [tasksTables],
  errors: FKDSL_ERRORS,
  prompts: [scanMarketPrompt],
  tools: [...fkDslTools, ...fkDslCatalogTools],
  jobs: [
    {
      job: executeJob,
      // A job is a turn, not a task: the turn runs whichever queued task is fairest to run next.
      handler: (deps) => () => deps.fkDsl.runNextTask(),
      work: { concurrency: 2, pollingIntervalSeconds: 1 },
    },
    {
      job: cleanupJob,
      handler: (deps) => () => deps.fkDsl.deleteExpiredTasks(),
      cron: { expression: '17 3 * * *', data: {} },
    },
  ],
  // Runs after server-info registered this instance, so its heartbeats drive the recovery.
  // Tasks a stopped instance left are taken over once this one serves (and at each heartbeat).
  warmUp: (deps) => deps.fkDsl.startTaskRecovery(),
  stop: (deps) => deps.fkDsl.stopTaskRecovery(),
});
