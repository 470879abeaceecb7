import { builder } from '../builder.ts';
import { errorCodeEnum, exposedErrorCode } from '../error-codes.graphql.ts';
import { reportToolCall } from '../market-data/tools/report-tool-call.ts';
import { parseSessionId } from '../market-data/tools/tool-args.ts';
import { enumValues } from '../platform/graphql/enum-values.ts';
import { fkDslDeps } from './fk-dsl.deps.ts';
import type { ExecutionResult, StatementOutcome } from './fk-dsl.service.ts';
import { LIMITS } from './fk-dsl.service.ts';
import { PlanRef, type StatementKind, StatementKindEnum } from './fk-dsl-plan.graphql.ts';
import { ResultUnion, resultJson, succeeded } from './fk-dsl-results.graphql.ts';
import { MetricUnitEnum, VALUE_OBJECT } from './fk-dsl-values.graphql.ts';
import { METRICS, type MetricSpec } from './metrics-catalog.ts';
import type { TaskRow } from './tasks.repository.ts';

/**
 * FK-DSL's root fields, its runs and its background tasks. Statement results are typed in
 * fk-dsl-results.graphql.ts (and the files it draws on), plans in fk-dsl-plan.graphql.ts.
 */

type TaskStatus = TaskRow['status'];

const TaskStatusEnum = builder.enumType('FkDslTaskStatus', {
  description: 'Where an FK-DSL run is.',
  values: enumValues<TaskStatus>({
    queued: 'Waiting for a worker (a background task only).',
    running: 'Being evaluated (a background task only).',
    completed: 'Finished: every statement has its result or its own error.',
    failed: 'The background task as a whole failed (see its `error`); no statement has a result.',
  }),
});

const ErrorRef = builder.objectRef<{ code: string; message: string }>('FkDslError').implement({
  description: `Why a statement, or a whole background task, failed. ${VALUE_OBJECT}`,
  fields: (t) => ({
    code: t.field({
      type: errorCodeEnum(),
      description: 'Stable error code, as in `extensions.code` of GraphQL errors.',
      resolve: (e) => exposedErrorCode(e.code),
    }),
    message: t.exposeString('message', { description: 'What went wrong, for people.' }),
  }),
});

const StatementRef = builder.objectRef<StatementOutcome>('FkDslStatementResult').implement({
  description: `One statement of a query: its canonical text and either its result or its error. ${VALUE_OBJECT}`,
  fields: (t) => ({
    index: t.exposeInt('index', { description: 'Position of the statement in the query, from 0.' }),
    kind: t.field({
      type: StatementKindEnum,
      description: 'The kind of statement; it says which type `result` is.',
      resolve: (s) => s.kind as StatementKind,
    }),
    statement: t.exposeString('statement', { description: 'The statement in canonical form.' }),
    result: t.field({
      type: ResultUnion,
      nullable: true,
      description: 'What the statement gives, typed by its kind; null when it failed (see `error`).',
      resolve: (s) => succeeded(s),
    }),
    resultJson: t.field({
      type: 'JSON',
      nullable: true,
      description:
        'The result as untyped JSON, as `result` was before it was typed: evaluate {asset}, compare {assets, table}, ' +
        'correlate {window, pairs}, macro {analysis, ..., result}, scan {universe, scanned, matches, skipped}, explain {plan}.',
      deprecationReason: 'Use the typed `result`; this JSON form is removed in the next release.',
      resolve: (s) => resultJson(s),
    }),
    error: t.field({
      type: ErrorRef,
      nullable: true,
      description: 'Why the statement failed (the others still have results); null when it has a result.',
      resolve: (s) => ('error' in s ? s.error : null),
    }),
  }),
});

const ExecutionRef = builder.objectRef<ExecutionResult>('FkDslExecution').implement({
  description: `A finished run of an FK-DSL query: one result per statement. ${VALUE_OBJECT}`,
  fields: (t) => ({
    query: t.exposeString('query', { description: 'The query as submitted.' }),
    status: t.field({
      type: TaskStatusEnum,
      description: 'Always COMPLETED: a run that could not start is a GraphQL error instead.',
      resolve: (r) => r.status,
    }),
    errors: t.exposeInt('errors', { description: 'Statements that failed (the others still have results).' }),
    elapsedMs: t.exposeInt('elapsedMs', { description: 'Time the run took, in ms.' }),
    statements: t.field({
      type: [StatementRef],
      description: 'One per statement, in the order written.',
      resolve: (r) => [...r.statements],
    }),
    conventions: t.field({
      type: 'JSON',
      description:
        'How every number was computed, as a JSON object of short texts keyed by topic (windows, percentages, ' +
        'returns, each indicator). Untyped on purpose: the topics grow with the metrics; read it, do not parse it.',
      resolve: (r) => r.conventions,
    }),
  }),
});

const TaskRef = builder.objectRef<TaskRow>('FkDslTask').implement({
  description:
    'An FK-DSL query run in the background; kept in the database, so any instance can answer for it. ' +
    'An entity: `id` (the task id) is its cache key.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The task id (a UUID); the same as `taskId`.' }),
    taskId: t.exposeID('id', { description: 'The task id (a UUID), as `get-task-status` takes it.' }),
    status: t.field({
      type: TaskStatusEnum,
      description: 'Where the task is.',
      resolve: (task) => task.status,
    }),
    query: t.exposeString('query', { description: 'The query as submitted.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was submitted.' }),
    startedAt: t.expose('startedAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When a worker last started it; null while queued the first time.',
    }),
    finishedAt: t.expose('finishedAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When it completed or failed; null before.',
    }),
    result: t.field({
      type: ExecutionRef,
      nullable: true,
      description: 'The results once COMPLETED; null before, or when it failed.',
      resolve: (task) => (task.result as ExecutionResult | null) ?? null,
    }),
    error: t.field({
      type: ErrorRef,
      nullable: true,
      description: 'Why the task FAILED; null otherwise.',
      resolve: (task) => task.error ?? null,
    }),
  }),
});

const signatureOf = (m: MetricSpec) =>
  m.params.length
    ? `${m.name}(${m.params.map((p) => `${p.name}${p.repeated ? '...' : ''}${p.default !== undefined ? ` = ${p.default}` : p.optional ? '?' : ''}`).join(', ')})`
    : m.name;

const MetricRef = builder.objectRef<MetricSpec>('FkDslMetric').implement({
  description: 'A metric FK-DSL knows (the catalog). An entity: `id` (its name) is its cache key.',
  fields: (t) => ({
    id: t.exposeID('name', { description: 'The metric name, unique in the catalog.' }),
    name: t.exposeString('name', { description: 'The metric name, as written in queries: `VOLATILITY`.' }),
    unit: t.field({ type: MetricUnitEnum, description: 'Unit of its values.', resolve: (m) => m.unit }),
    description: t.exposeString('description', { description: 'What it computes and how.' }),
    technical: t.boolean({
      description: 'Whether it can be used inside TECHNICAL(...).',
      resolve: (m) => m.technical ?? false,
    }),
    signature: t.string({
      description: 'Its arguments with defaults: `VOLATILITY(window = 30d)`; `...` marks a repeated one.',
      resolve: signatureOf,
    }),
  }),
});

const QUERY_DOC =
  `FK-DSL query (at most ${LIMITS.queryLength} characters, ${LIMITS.statements} statements, ${LIMITS.symbols} symbols). ` +
  'Example: EVALUATE AAPL: PRICE, VOLATILITY(30d), TECHNICAL(RSI, MACD); CORRELATE BTC/USDT, ETH/USDT PERIOD(90d)';

const SESSION_DOC = 'Analysis session to record this query in (createAnalysisSession).';

builder.queryField('executeFkDsl', (t) =>
  t.field({
    type: ExecutionRef,
    description:
      'Runs an FK-DSL query and waits for the result (the `execute-fk-dsl` tool; see submitFkDsl for background runs).',
    args: {
      query: t.arg.string({ required: true, description: QUERY_DOC }),
      sessionId: t.arg.string({ description: SESSION_DOC }),
    },
    resolve: async (_root, { query, sessionId }, ctx) => {
      const session = parseSessionId(sessionId);
      const started = performance.now();
      const result = await fkDslDeps(ctx).fkDsl.execute(query);
      await reportToolCall(fkDslDeps(ctx).toolCalls, session, ctx.viewer.principal, {
        tool: 'execute-fk-dsl',
        parameters: { query },
        resultSummary: `${result.statements.length} statement(s): ${result.statements.map((s) => s.kind).join(', ')}; ${result.errors} failed`,
        symbols: result.symbols,
        cacheHit: null,
        startedAt: started,
        at: fkDslDeps(ctx).clock.now(),
      });
      return result;
    },
  }),
);

builder.queryField('explainFkDsl', (t) =>
  t.field({
    type: [PlanRef],
    description:
      'The evaluation plan of a query (what is fetched, once per instrument, and what is computed), without running it.',
    args: { query: t.arg.string({ required: true, description: QUERY_DOC }) },
    resolve: (_root, { query }, ctx) => fkDslDeps(ctx).fkDsl.explain(query),
  }),
);

builder.queryField('fkDslTask', (t) =>
  t.field({
    type: TaskRef,
    description:
      'Status (and, once completed, the result) of a submitted query: the `get-task-status` tool. ' +
      'Only its submitter (or an admin) sees a task; anyone else gets NOT_FOUND.',
    args: { taskId: t.arg.id({ required: true, description: 'The task id submitFkDsl returned.' }) },
    resolve: (_root, { taskId }, ctx) => fkDslDeps(ctx).fkDsl.task(String(taskId), ctx.viewer.principal),
  }),
);

builder.queryField('fkDslMetrics', (t) =>
  t.field({
    type: [MetricRef],
    description: 'Every metric FK-DSL knows, with its arguments, defaults and unit.',
    resolve: () => [...METRICS.values()],
  }),
);

builder.mutationField('submitFkDsl', (t) =>
  t.field({
    type: TaskRef,
    description:
      'Checks a query now and runs it in the background; poll fkDslTask(taskId) for the result. ' +
      'The task belongs to the caller.',
    args: {
      query: t.arg.string({ required: true, description: QUERY_DOC }),
      sessionId: t.arg.string({ description: `${SESSION_DOC} (recorded when submitted)` }),
    },
    resolve: async (_root, { query, sessionId }, ctx) => {
      const session = parseSessionId(sessionId);
      const started = performance.now();
      const task = await fkDslDeps(ctx).fkDsl.submit(query, ctx.viewer);
      await reportToolCall(fkDslDeps(ctx).toolCalls, session, ctx.viewer.principal, {
        tool: 'execute-fk-dsl',
        parameters: { query, async: true },
        resultSummary: `submitted as task ${task.id}`,
        symbols: [],
        cacheHit: null,
        startedAt: started,
        at: fkDslDeps(ctx).clock.now(),
      });
      return task;
    },
  }),
);
