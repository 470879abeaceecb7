import type { Config } from '../config.ts';
import { MAX_SYMBOLS_PER_REQUEST } from '../market-data/limits.ts';
import type { MarketDataService } from '../market-data/market-data.service.ts';
import type { Instrument } from '../market-data/types.ts';
import { type Principal, requireScope } from '../platform/access/principal.ts';
import type { Clock } from '../platform/clock.ts';
import type { Database } from '../platform/db/database.ts';
import { isAppError, ValidationError } from '../platform/errors.ts';
import type { Viewer } from '../platform/http/client-identity.ts';
import type { Jobs } from '../platform/jobs/jobs.ts';
import type { Logger } from '../platform/observability/logger.ts';
import { INDICATOR_CONVENTIONS } from '../quant/indicators/index.ts';
import type { AssetRef, Program, QueryStatement, Statement } from './ast.ts';
import { estimateCost } from './cost.ts';
import { FkDslQueryError } from './errors.ts';
import { Deadline } from './evaluator/deadline.ts';
import { evaluateStatements, type StatementResult } from './evaluator/evaluate.ts';
import { MIN_INDICATOR_HISTORY } from './evaluator/metrics.ts';
import { WINDOW_CONVENTIONS } from './evaluator/windows.ts';
import { explain, type StatementPlan } from './explain.ts';
import { parse } from './parser.ts';
import { printStatement } from './printer.ts';
import { type InstanceRegistry, TaskQueue } from './task-queue.ts';
import type { TaskRow } from './tasks.repository.ts';
import { SCAN_UNIVERSES, type ScanUniverse, scanUniverse } from './universes.ts';
import { validateProgram } from './validate.ts';

export const LIMITS = {
  queryLength: 10_000,
  statements: 20,
  /** Distinct symbols written in one query (SCAN universes not counted): a market-data request. */
  symbols: MAX_SYMBOLS_PER_REQUEST,
  scanUniverse: 250,
} as const;

export type StatementOutcome =
  | (StatementResult & { readonly index: number })
  | {
      readonly index: number;
      readonly kind: 'explain';
      readonly statement: string;
      readonly plan: StatementPlan;
    }
  | {
      readonly index: number;
      readonly kind: string;
      readonly statement: string;
      readonly error: { readonly code: string; readonly message: string };
    };

export interface ExecutionResult {
  readonly query: string;
  readonly status: 'completed';
  readonly statements: readonly StatementOutcome[];
  readonly errors: number;
  readonly elapsedMs: number;
  /** The distinct symbols the query names (SCAN universes not expanded). */
  readonly symbols: readonly string[];
  /** How every number was computed (indicator smoothing, annualisation, windows). */
  readonly conventions: Readonly<Record<string, string>>;
}

export const QUERY_CONVENTIONS: Readonly<Record<string, string>> = {
  windows: WINDOW_CONVENTIONS,
  percentages:
    'CHANGE, PRICE_CHANGE, MOMENTUM, VOLATILITY and DRAWDOWN are in percent; `40%` and `40` are equal',
  returns: 'log returns of closes; correlations on the dates both series have',
  ...INDICATOR_CONVENTIONS,
  BETA: 'BETA: cov / var of daily log returns against the benchmark (SPY; BTC/USDT for crypto) on common dates',
  indicatorHistory: `indicators are computed over at least ${MIN_INDICATOR_HISTORY} daily bars (or 5 x their period) so their smoothing has settled`,
};

/**
 * Runs FK-DSL queries: parse, check limits, plan, fetch once, evaluate. Synchronously, or as a
 * task persisted in the database and run by a job (any instance can report its status).
 */
export class FkDslService {
  readonly #tasks: TaskQueue;

  constructor(
    db: Database,
    jobs: Jobs,
    private readonly marketData: MarketDataService,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly config: Config['fkDsl'],
    instances: InstanceRegistry,
  ) {
    this.#tasks = new TaskQueue({
      db,
      jobs,
      clock,
      logger,
      settings: config,
      instances,
      // A task spends its submitter's share of upstream calls, as the same query run directly would.
      run: (query, clientId) => this.marketData.withinOperation(clientId, () => this.execute(query)),
      publicError: (error) => publicError(error, logger),
    });
  }

  /**
   * Parses and checks limits, arguments and the estimated cost (FKDSL_MAX_COST); syntax errors
   * carry line, column and a caret snippet.
   */
  compile(query: string): Program {
    const program = this.#checked(query);
    const runnable = program.statements.filter((s): s is QueryStatement => s.kind !== 'explain');
    const cost = estimateCost(runnable, this.#context());
    if (cost.total > this.config.maxCost) {
      const n = (x: number) => Math.round(x).toLocaleString('en-US');
      throw new FkDslQueryError(
        `estimated cost ${n(cost.total)} (instruments x bars x computations) is over FKDSL_MAX_COST ` +
          `(${n(this.config.maxCost)}); use shorter windows, daily instead of hourly bars, or fewer instruments`,
        {
          limit: 'FKDSL_MAX_COST',
          max: this.config.maxCost,
          estimate: cost.total,
          fetch: cost.fetch,
          compute: cost.compute,
        },
      );
    }
    return program;
  }

  /** compile() without the cost: EXPLAIN shows the plan of a query that is too heavy to run. */
  #checked(query: string): Program {
    if (typeof query !== 'string' || query.trim() === '')
      throw new ValidationError('query', 'must not be empty');
    if (query.length > LIMITS.queryLength) {
      throw new ValidationError('query', `is ${query.length} characters; at most ${LIMITS.queryLength}`);
    }
    const program = parse(query);
    if (program.statements.length > LIMITS.statements) {
      throw new FkDslQueryError(
        `${program.statements.length} statements; at most ${LIMITS.statements} per query`,
        { limit: LIMITS.statements },
      );
    }
    const symbols = new Set(collectAssets(program).map((a) => a.symbol.toUpperCase()));
    if (symbols.size > LIMITS.symbols) {
      throw new FkDslQueryError(`${symbols.size} distinct symbols; at most ${LIMITS.symbols} per query`, {
        limit: LIMITS.symbols,
      });
    }
    validateProgram(program);
    return program;
  }

  explain(query: string): StatementPlan[] {
    const program = this.#checked(query);
    return explain(
      program.statements.map((s) => (s.kind === 'explain' ? s.statement : s)),
      this.marketData,
      this.clock,
      (name) => this.universe(name),
    );
  }

  async execute(query: string): Promise<ExecutionResult> {
    const started = performance.now();
    const deadline = new Deadline(this.config.deadlineMs);
    const program = this.compile(query);
    const statements: StatementOutcome[] = new Array(program.statements.length);
    const runnable: Array<{ index: number; statement: QueryStatement }> = [];
    program.statements.forEach((statement, index) => {
      if (statement.kind === 'explain') {
        try {
          const [plan] = explain([statement.statement], this.marketData, this.clock, (name) =>
            this.universe(name),
          );
          statements[index] = { index, kind: 'explain', statement: printStatement(statement), plan: plan! };
        } catch (error) {
          statements[index] = this.#failed(index, statement, error);
        }
      } else {
        runnable.push({ index, statement });
      }
    });
    const settled = await evaluateStatements(
      runnable.map((r) => r.statement),
      { ...this.#context(), deadline },
    );
    const results = settled.map((outcome, i): StatementOutcome => {
      const { index, statement } = runnable[i]!;
      return outcome.ok ? { index, ...outcome.result } : this.#failed(index, statement, outcome.error);
    });
    for (const r of results) statements[r.index] = r;
    return {
      query,
      status: 'completed',
      statements,
      errors: statements.filter((s) => 'error' in s).length,
      elapsedMs: Math.round(performance.now() - started),
      symbols: [...new Set(collectAssets(program).map((a) => a.symbol.toUpperCase()))],
      conventions: QUERY_CONVENTIONS,
    };
  }

  /**
   * Validates the query now, then runs it in the background; returns the task to poll. The task
   * belongs to the caller's principal; its unfinished tasks are capped and scheduled fairly against
   * other clients' under the caller's client id.
   */
  async submit(query: string, viewer: Viewer): Promise<TaskRow> {
    requireScope(viewer.principal, 'write', 'submitFkDsl');
    this.compile(query);
    return this.#tasks.submit(query, viewer.clientId, viewer.principal.id);
  }

  /** A task, for its owner or an admin (not found for anyone else). */
  task(id: string, viewer: Principal): Promise<TaskRow> {
    return this.#tasks.task(id, viewer);
  }

  /** One `fkdsl.execute` job: runs the queued task that is fairest to run next (see TaskQueue). */
  async runNextTask(): Promise<void> {
    await this.#tasks.runNext();
  }

  /** Requeues (or fails) tasks of instances that stopped, now and after every heartbeat. */
  startTaskRecovery(): Promise<void> {
    return this.#tasks.startRecovery();
  }

  stopTaskRecovery(): void {
    this.#tasks.stopRecovery();
  }

  /** The daily retention job: deletes finished tasks older than FKDSL_TASK_RETENTION_DAYS. */
  async deleteExpiredTasks(): Promise<void> {
    await this.#tasks.deleteExpiredTasks();
  }

  /** Instruments of a named SCAN universe: the providers' own list when they have one, else configuration. */
  universe(name: string): Instrument[] {
    return [...this.scanUniverse(name).instruments];
  }

  /** A named SCAN universe, with where its list comes from. */
  scanUniverse(name: string): ScanUniverse {
    return scanUniverse(name, this.marketData.universe(), this.config.scanUniverse, LIMITS.scanUniverse);
  }

  /** Every named SCAN universe (`list-universes`). */
  universes(): ScanUniverse[] {
    return SCAN_UNIVERSES.map((name) => this.scanUniverse(name));
  }

  #context() {
    return {
      marketData: this.marketData,
      clock: this.clock,
      universe: (name: string) => this.universe(name),
    };
  }

  #failed(index: number, statement: Statement, error: unknown): StatementOutcome {
    return {
      index,
      kind: statement.kind,
      statement: printStatement(statement),
      error: publicError(error, this.logger),
    };
  }
}

/** Domain errors keep their message; anything else is logged and reported without internals. */
function publicError(error: unknown, logger: Logger): { code: string; message: string } {
  if (isAppError(error)) return { code: error.code, message: error.message };
  logger.error({ err: error }, 'FK-DSL evaluation failed unexpectedly');
  return { code: 'INTERNAL', message: 'internal error while evaluating this statement' };
}

function collectAssets(program: Program): AssetRef[] {
  const assets: AssetRef[] = [];
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(visit);
    else if (node && typeof node === 'object') {
      if ((node as { kind?: unknown }).kind === 'asset') assets.push(node as AssetRef);
      else Object.values(node).forEach(visit);
    }
  };
  visit(program);
  return assets;
}
