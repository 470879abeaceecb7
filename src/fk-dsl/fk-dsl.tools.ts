import { z } from 'zod';
import type { ToolDefinition } from '../platform/operations/tool.ts';
import {
  RESULT_FRAGMENTS,
  type ResultData,
  resultWire,
  STATEMENT_KIND,
  TASK_STATUS,
  TASK_STATUSES,
} from './fk-dsl-wire.ts';

/** `execute-fk-dsl` and `get-task-status` as GraphQL documents with their wire shapes. */

interface ExecutionData {
  query: string;
  status: string;
  errors: number;
  elapsedMs: number;
  conventions: Record<string, string>;
  statements: {
    index: number;
    kind: string;
    statement: string;
    result: ResultData | null;
    error: { code: string; message: string } | null;
  }[];
}

interface TaskData {
  taskId: string;
  status: string;
  query: string;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  result: ExecutionData | null;
  error: { code: string; message: string } | null;
}

const EXECUTION_FIELDS =
  'query status errors elapsedMs conventions statements { index kind statement result { ...FkDslResultWire } error { code message } }';

const isoTime = z.string().describe('ISO 8601 time, UTC');
const errorSchema = z.object({ code: z.string(), message: z.string() });

const executionSchema = z.object({
  statements: z.array(
    z.object({
      index: z.number().int(),
      kind: z.string().describe('evaluate, compare, correlate, macro, scan or explain'),
      statement: z.string().describe('The statement in canonical form'),
      result: z
        .record(z.string(), z.unknown())
        .nullable()
        .describe(
          'evaluate: {asset:{symbol, metrics:[{metric, value, unit, asOf, window}], lineage}}; compare: {assets, ' +
            'table}; correlate: {window, pairs}; macro: {analysis, observations, ...}; scan: {universe, scanned, ' +
            'matches, skipped}; explain: {plan}. Null when the statement failed.',
        ),
      error: errorSchema.nullable().describe('Why the statement failed; null when it has a result'),
    }),
  ),
  errors: z.number().int().describe('Statements that failed (the others still have results)'),
  elapsed_ms: z.number().int(),
  conventions: z.record(z.string(), z.string()).describe('How every number was computed'),
});

type ExecutionWire = z.infer<typeof executionSchema>;

function execution(data: ExecutionData): ExecutionWire {
  return {
    statements: data.statements.map((s) => ({
      index: s.index,
      kind: STATEMENT_KIND(s.kind),
      statement: s.statement,
      result: resultWire(s.result),
      error: s.error,
    })),
    errors: data.errors,
    elapsed_ms: data.elapsedMs,
    conventions: data.conventions,
  };
}

const executeOutput = z.object({
  query: z.string(),
  status: z.enum(TASK_STATUSES).describe('completed for a run that waited; queued or running for async'),
  result: executionSchema.optional().describe('The results (when the call waited for them)'),
  task_id: z.string().optional().describe('The background task (async); poll get-task-status with it'),
  created_at: isoTime.optional().describe('When the background task was created (async)'),
});

type ExecuteWire = z.infer<typeof executeOutput>;

const executeFkDsl: ToolDefinition<{ executeFkDsl?: ExecutionData; submitFkDsl?: TaskData }, ExecuteWire> = {
  name: 'execute-fk-dsl',
  title: 'Execute an FK-DSL query',
  description:
    'Runs an FK-DSL query on market data, e.g. `EVALUATE AAPL: PRICE, VOLATILITY(30d), TECHNICAL(RSI, MACD)` or ' +
    '`CORRELATE BTC/USDT, ETH/USDT PERIOD(90d)`; statements are separated by `;`. By default it waits and returns ' +
    '{query, status: "completed", result: {statements: [{index, kind, statement, result, error}], errors, ' +
    'elapsed_ms, conventions}}: a statement that fails has an error and the others still have results. With ' +
    'async: true it starts a background task and returns {task_id, status, query, created_at} at once; poll ' +
    'get-task-status with the task_id. Percent metrics (CHANGE, VOLATILITY, ...) are in percent; `conventions` ' +
    'says how each number is computed.',
  document: /* GraphQL */ `
    query ExecuteFkDsl($query: String!, $sessionId: String) { executeFkDsl(query: $query, sessionId: $sessionId) { ${EXECUTION_FIELDS} } }
    mutation SubmitFkDsl($query: String!, $sessionId: String) { submitFkDsl(query: $query, sessionId: $sessionId) { taskId status query createdAt } }
    ${RESULT_FRAGMENTS}`,
  operationName: (args) => (args.async ? 'SubmitFkDsl' : 'ExecuteFkDsl'),
  arguments: {
    async: {
      schema: z.boolean(),
      default: false,
      description:
        'false (default): wait for the result. true: run in the background and return a task_id for get-task-status.',
    },
  },
  result: (data) => {
    if (data.submitFkDsl) {
      const task = data.submitFkDsl;
      return {
        task_id: task.taskId,
        status: TASK_STATUS(task.status),
        query: task.query,
        created_at: task.createdAt,
      };
    }
    const run = data.executeFkDsl!;
    return { query: run.query, status: TASK_STATUS(run.status), result: execution(run) };
  },
  outputSchema: executeOutput,
  // Not read-only and not idempotent: with async it writes a task (each call a new one). The waiting
  // form only reads market data, but hints describe the tool as a whole, so they state the stronger case.
  // Not destructive either (MCP assumes destructive when not read-only): a task only adds a row.
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
};

const taskOutput = z.object({
  task_id: z.string(),
  status: z.enum(TASK_STATUSES),
  query: z.string(),
  created_at: isoTime,
  started_at: isoTime.nullable(),
  finished_at: isoTime.nullable(),
  result: executionSchema.nullable().describe('The results once completed; null before, or when it failed'),
  error: errorSchema.nullable().describe('Why the task failed; null otherwise'),
});

type TaskWire = z.infer<typeof taskOutput>;

const getTaskStatus: ToolDefinition<{ fkDslTask: TaskData }, TaskWire> = {
  name: 'get-task-status',
  title: 'FK-DSL task status',
  description:
    'Status of a background FK-DSL query started with execute-fk-dsl (async: true): queued, running, completed ' +
    'or failed, with its times; once completed, `result` holds the same results execute-fk-dsl returns when it ' +
    'waits, and when it failed, `error` says why.',
  document: /* GraphQL */ `
    query FkDslTask($taskId: ID!) {
      fkDslTask(taskId: $taskId) {
        taskId status query createdAt startedAt finishedAt error { code message }
        result { ${EXECUTION_FIELDS} }
      }
    }
    ${RESULT_FRAGMENTS}`,
  arguments: {
    taskId: { description: 'The task_id execute-fk-dsl returned.' },
  },
  result: ({ fkDslTask: task }) => ({
    task_id: task.taskId,
    status: TASK_STATUS(task.status),
    query: task.query,
    created_at: task.createdAt,
    started_at: task.startedAt,
    finished_at: task.finishedAt,
    result: task.result && execution(task.result),
    error: task.error,
  }),
  outputSchema: taskOutput,
  annotations: { readOnlyHint: true, openWorldHint: false },
};

export const fkDslTools: readonly ToolDefinition<never>[] = [executeFkDsl, getTaskStatus];
