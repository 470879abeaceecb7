import { builder } from '../builder.ts';
import type { StatementPlan } from './explain.ts';
import type { ExecutionResult, StatementOutcome } from './fk-dsl.service.ts';
import { LIMITS } from './fk-dsl.service.ts';
import { METRICS, type MetricSpec } from './metrics-catalog.ts';
import type { TaskRow } from './tasks.repository.ts';

const ErrorRef = builder.objectRef<{ code: string; message: string }>('FkDslError').implement({
  fields: (t) => ({ code: t.exposeString('code'), message: t.exposeString('message') }),
});

const StatementRef = builder.objectRef<StatementOutcome>('FkDslStatementResult').implement({
  description:
    'One statement of a query: its canonical text and either its result (structured JSON) or its error.',
  fields: (t) => ({
    index: t.exposeInt('index'),
    kind: t.exposeString('kind'),
    statement: t.exposeString('statement'),
    result: t.field({
      type: 'JSON',
      nullable: true,
      description:
        'evaluate: {asset:{symbol, metrics:[{metric, value, unit, asOf, window}], lineage}}; compare: {assets, table}; ' +
        'correlate: {window, pairs:[{a, b, correlation, observations, from, to}]}; macro: {analysis, observations, ...}; ' +
        'scan: {universe, scanned, matches:[{symbol, values}], skipped}; explain: {plan}.',
      resolve: (s) => {
        if ('error' in s) return null;
        const { index: _index, kind: _kind, statement: _statement, ...rest } = s as Record<string, unknown>;
        return rest;
      },
    }),
    error: t.field({ type: ErrorRef, nullable: true, resolve: (s) => ('error' in s ? s.error : null) }),
  }),
});

const ExecutionRef = builder.objectRef<ExecutionResult>('FkDslExecution').implement({
  fields: (t) => ({
    query: t.exposeString('query'),
    status: t.exposeString('status'),
    errors: t.exposeInt('errors', { description: 'Statements that failed (the others still have results).' }),
    elapsedMs: t.exposeInt('elapsedMs'),
    statements: t.field({ type: [StatementRef], resolve: (r) => [...r.statements] }),
    conventions: t.field({
      type: 'JSON',
      description: 'How every number was computed.',
      resolve: (r) => r.conventions,
    }),
  }),
});

const TaskRef = builder.objectRef<TaskRow>('FkDslTask').implement({
  description:
    'An FK-DSL query run in the background; kept in the database, so any instance can answer for it.',
  fields: (t) => ({
    taskId: t.exposeID('id'),
    status: t.exposeString('status', { description: 'queued, running, completed or failed.' }),
    query: t.exposeString('query'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    startedAt: t.expose('startedAt', { type: 'DateTime', nullable: true }),
    finishedAt: t.expose('finishedAt', { type: 'DateTime', nullable: true }),
    result: t.field({
      type: ExecutionRef,
      nullable: true,
      resolve: (task) => (task.result as ExecutionResult | null) ?? null,
    }),
    error: t.field({ type: ErrorRef, nullable: true, resolve: (task) => task.error ?? null }),
  }),
});

const PlanRef = builder.objectRef<StatementPlan>('FkDslPlan').implement({
  fields: (t) => ({
    statement: t.exposeString('statement'),
    kind: t.exposeString('kind'),
    fetches: t.field({
      type: 'JSON',
      description: 'Per instrument: quote, profile, daily and hourly bars fetched (once).',
      resolve: (p) => p.fetches,
    }),
    computations: t.exposeStringList('computations'),
  }),
});

const MetricRef = builder.objectRef<MetricSpec>('FkDslMetric').implement({
  fields: (t) => ({
    name: t.exposeString('name'),
    unit: t.exposeString('unit'),
    description: t.exposeString('description'),
    technical: t.boolean({ resolve: (m) => m.technical ?? false }),
    signature: t.string({
      resolve: (m) =>
        m.params.length
          ? `${m.name}(${m.params.map((p) => `${p.name}${p.repeated ? '...' : ''}${p.default !== undefined ? ` = ${p.default}` : p.optional ? '?' : ''}`).join(', ')})`
          : m.name,
    }),
  }),
});

const QUERY_DOC =
  `FK-DSL query (at most ${LIMITS.queryLength} characters, ${LIMITS.statements} statements, ${LIMITS.symbols} symbols). ` +
  'Example: EVALUATE AAPL: PRICE, VOLATILITY(30d), TECHNICAL(RSI, MACD); CORRELATE BTC/USDT, ETH/USDT PERIOD(90d)';

builder.queryField('executeFkDsl', (t) =>
  t.field({
    type: ExecutionRef,
    description:
      'Runs an FK-DSL query and waits for the result (the `execute-fk-dsl` tool; see submitFkDsl for background runs).',
    args: { query: t.arg.string({ required: true, description: QUERY_DOC }) },
    resolve: (_root, { query }, ctx) => ctx.deps.fkDsl.execute(query),
  }),
);

builder.queryField('explainFkDsl', (t) =>
  t.field({
    type: [PlanRef],
    description:
      'The evaluation plan of a query (what is fetched, once per instrument, and what is computed), without running it.',
    args: { query: t.arg.string({ required: true, description: QUERY_DOC }) },
    resolve: (_root, { query }, ctx) => ctx.deps.fkDsl.explain(query),
  }),
);

builder.queryField('fkDslTask', (t) =>
  t.field({
    type: TaskRef,
    description:
      'Status (and, once completed, the result) of a submitted query: the `get-task-status` tool. ' +
      'Only its submitter (or an admin) sees a task; anyone else gets NOT_FOUND.',
    args: { taskId: t.arg.id({ required: true }) },
    resolve: (_root, { taskId }, ctx) => ctx.deps.fkDsl.task(String(taskId), ctx.viewer.principal),
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
    args: { query: t.arg.string({ required: true, description: QUERY_DOC }) },
    resolve: (_root, { query }, ctx) => ctx.deps.fkDsl.submit(query, ctx.viewer),
  }),
);
