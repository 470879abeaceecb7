import type { Scope } from './access/principal.ts';
import type { OperatorCommands } from './db/operator-channel.ts';
import type { ErrorCodeTable, ErrorTable } from './errors.ts';
import type { Method, RouteAccess, RouteHandler } from './http/http-routes.ts';
import type { JobDefinition } from './jobs/job.ts';
import type { JobHandler, WorkOptions } from './jobs/jobs.ts';
import type { McpPrompt } from './mcp/mcp-prompt.ts';
import type { McpResourceTemplate } from './mcp/mcp-resources.ts';
import type { OperationRunner } from './operations/runner.ts';
import type { ToolDefinition } from './operations/tool.ts';
import type { WsConnectionHandler } from './ws/upgrade-router.ts';

/**
 * What a domain brings to the app. `src/modules.ts` lists one per domain; the app iterates the
 * list, so adding a domain edits no platform file. Everything here is data or a function of the
 * app's dependencies (`Deps`), which the platform never looks inside.
 */
export interface ModuleDefinition<Deps> {
  readonly name: string;
  /**
   * The domain's `*.graphql.ts` files. Importing them registers their types and root fields on
   * the schema builder; listing them here is what imports them.
   */
  readonly graphql?: readonly object[];
  /** The domain's `*.sql.ts` files (drizzle tables), for the typed database handle. */
  readonly tables?: readonly Readonly<Record<string, unknown>>[];
  /** Error codes the domain's errors carry, and what each means on every surface. */
  readonly errors?: ErrorCodeTable;
  /** MCP tools and their REST routes: GraphQL documents run through the operation runner. */
  readonly tools?: readonly ToolDefinition[];
  /**
   * MCP resource templates (`vigil://prices/{symbol}`), served over every MCP transport with
   * read and subscribe; each is built from the app's dependencies once.
   */
  readonly resources?: readonly ((deps: Deps) => McpResourceTemplate)[];
  /**
   * MCP prompts for the domain's common jobs (`analyse-symbol`): messages that tell an agent which
   * tools to call with the user's arguments filled in. Each names the tools it uses; a prompt that
   * names a tool no module serves stops the app's build.
   */
  readonly prompts?: readonly McpPrompt[];
  /** Background work: a job, its handler, and optionally the cron schedule that enqueues it. */
  readonly jobs?: readonly ModuleJob<Deps>[];
  /** Plain HTTP routes that are not GraphQL operations (listings of in-process state, streams). */
  readonly routes?: readonly ModuleRoute<Deps>[];
  /** WebSocket routes, each with its own protocol. */
  readonly sockets?: readonly ModuleSocket<Deps>[];
  /**
   * Runs after the job engine started and before the app is ready: only what serving needs (a
   * listener that must hear everything from the first request on). Keep it to a few round trips.
   */
  readonly start?: (deps: Deps) => Promise<void> | void;
  /**
   * Commands the local operator may run on this instance (the `apikey` command line reaches a
   * running server on the embedded database through them; see platform/db/operator-channel.ts).
   * Each validates its own arguments and acts as the local operator.
   */
  readonly operatorCommands?: (deps: Deps) => OperatorCommands;
  /**
   * Runs once the app is ready and serving, one module at a time: first checks, recoveries of
   * work left by a stopped instance, caches. It never delays readiness or a request; a failure is
   * logged and the app keeps serving.
   */
  readonly warmUp?: (deps: Deps) => Promise<void> | void;
  /** Runs during a graceful stop, after sockets closed and before the job engine stops. */
  readonly stop?: (deps: Deps) => Promise<void> | void;
  /**
   * Runs during a graceful stop after running jobs finished, before the database closes: for what
   * must outlive the jobs (the instance's registration, which peers read to tell a dead instance's
   * tasks from a live one's).
   */
  readonly release?: (deps: Deps) => Promise<void> | void;
}

// biome-ignore lint/suspicious/noExplicitAny: a job list mixes jobs of every payload type.
export interface ModuleJob<Deps, J extends JobDefinition = JobDefinition<any>> {
  readonly job: J;
  readonly handler: (deps: Deps) => JobHandler<J>;
  readonly work?: WorkOptions;
  /** Cron expression (UTC); when due, the schedule only enqueues the job with `data`. */
  readonly cron?: { readonly expression: string; readonly data: unknown };
}

/** What the host tells a route about the running server. */
export interface HostInfo {
  /** Open WebSocket connections, in total and per route template. */
  readonly connections: () => { readonly total: number; readonly byRoute: Readonly<Record<string, number>> };
  /** Runs GraphQL documents as `/graphql` does: routes that answer from an operation go through it. */
  readonly operations: OperationRunner;
  /** What each error code means on REST (its status), for routes that render errors themselves. */
  readonly errors: ErrorTable;
}

export interface ModuleRoute<Deps> {
  readonly methods: Method | readonly Method[];
  readonly path: string;
  readonly handler: (deps: Deps, host: HostInfo) => RouteHandler;
  /** One line for the API documentation page. */
  readonly summary: string;
  /**
   * The GraphQL document the handler runs (through `host.operations`). The route's access is then
   * the scope the operation needs, computed from it, so the route refuses, and is documented as
   * refusing, exactly what the operation would; such a route declares no `access`.
   */
  readonly operation?: string;
  /** Who may call a route that runs no operation (default `read`). */
  readonly access?: RouteAccess;
}

export interface ModuleSocket<Deps> {
  readonly path: string;
  readonly onConnection: (deps: Deps) => WsConnectionHandler;
  /** One line for the API documentation page. */
  readonly summary: string;
  /** Scope a caller needs to connect (default `read`). */
  readonly scope?: Scope;
}

/** Identity function that checks a module's shape where it is written. */
export function defineModule<Deps>(definition: ModuleDefinition<Deps>): ModuleDefinition<Deps> {
  return definition;
}

/** Every module's MCP resource templates, bound to the app's dependencies. */
export function resourcesOf<Deps>(
  modules: readonly ModuleDefinition<Deps>[],
  deps: Deps,
): McpResourceTemplate[] {
  return modules.flatMap((m) => (m.resources ?? []).map((resource) => resource(deps)));
}

/** Every module's MCP prompts, in module order. */
export function promptsOf(modules: readonly ModuleDefinition<never>[]): McpPrompt[] {
  return modules.flatMap((m) => m.prompts ?? []);
}

/** Every table of every module, for the typed database handle. */
export function tablesOf(modules: readonly ModuleDefinition<never>[]): Record<string, unknown> {
  return Object.assign({}, ...modules.flatMap((m) => m.tables ?? []));
}
