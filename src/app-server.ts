import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { createServerAdapter } from '@whatwg-node/server';
import type { ModuleLifecycle } from './app-modules.ts';
import { logStart } from './app-start-log.ts';
import type { AppDeps } from './deps.ts';
import type { ServerContext } from './platform/http/http-routes.ts';
import { createHttpServer, type PortListener } from './platform/http/port-listener.ts';
import { type AppState, stopGracefully } from './platform/lifecycle.ts';
import type { UpgradeRouter } from './platform/ws/upgrade-router.ts';

/** What the app serves HTTP with: the request adapter (a fetch handler that is also a Node listener). */
export type RequestAdapter = ReturnType<typeof createServerAdapter<ServerContext>>;

export interface AppServerParts {
  readonly deps: AppDeps;
  readonly lifecycle: ModuleLifecycle;
  readonly adapter: RequestAdapter;
  readonly upgrades: UpgradeRouter;
  /** Ends the open streams (SSE, multipart, MCP, WebSockets) within `ms`. */
  readonly closeStreams: (ms: number) => Promise<void>;
  /** The last step of a stop, before the database closes: releases what the app holds. */
  readonly dispose: () => Promise<void>;
}

export type ListenOptions = { port: number; host: string } | { listener: PortListener; host: string };

/**
 * The app's lifecycle: built, starting (the modules' start), running (serving HTTP, or stdio only),
 * stopping and stopped. A stop that arrives while the app starts makes the start give up at its
 * next step; a stop waits (bounded) for a warm-up step under way, then stops gracefully.
 */
export class AppServer {
  readonly #parts: AppServerParts;
  #state: AppState = 'built';
  #server: Server | undefined;
  #starting: Promise<void> | undefined;
  #warming: Promise<void> | undefined;
  #warmedUp!: () => void;
  /** Settles when the warm-up after the start has run (or the app stopped without one). */
  readonly warmedUp = new Promise<void>((resolve) => {
    this.#warmedUp = resolve;
  });

  constructor(parts: AppServerParts) {
    this.#parts = parts;
  }

  get state(): AppState {
    return this.#state;
  }

  /** Serves one request in-process (no port needed): the same path as a real HTTP request. */
  fetch(input: string | Request, init?: RequestInit): Promise<Response> {
    const request = typeof input === 'string' ? new Request(new URL(input, 'http://localhost'), init) : input;
    return Promise.resolve(this.#parts.adapter.fetch(request, {}));
  }

  async startWithoutListening(): Promise<void> {
    await this.#startModules();
    this.#state = 'running';
    this.#beginWarmUp();
  }

  async start(options: ListenOptions): Promise<{ url: string; port: number }> {
    await this.#startModules();
    this.#checkNotStopped();
    const server = await this.#serve(options);
    this.#checkNotStopped();
    this.#state = 'running';
    const bound = (server.address() as AddressInfo).port;
    const host = options.host;
    const url = `http://${host.includes(':') ? `[${host}]` : host}:${bound}`;
    logStart(this.#parts.deps, url, host);
    this.#beginWarmUp();
    return { url, port: bound };
  }

  async stop(): Promise<void> {
    if (this.#state === 'stopping' || this.#state === 'stopped') return;
    const { deps, lifecycle, closeStreams, dispose } = this.#parts;
    const { logger, config } = deps;
    const wasStarting = this.#state === 'starting';
    this.#state = 'stopping';
    // A start under way gives up at its next step; wait for it (bounded) so nothing starts later.
    if (wasStarting && this.#starting) {
      await Promise.race([this.#starting.catch(() => {}), delay(config.shutdownTimeoutMs)]);
    }
    // Likewise a warm-up step under way (it stops before its next step).
    if (this.#warming) await Promise.race([this.#warming, delay(config.shutdownTimeoutMs)]);
    this.#warmedUp();
    await stopGracefully({
      logger,
      timeoutMs: config.shutdownTimeoutMs,
      server: this.#server,
      closeStreams,
      stopModules: () => lifecycle.stop(),
      stopJobs: (ms) => deps.jobs.stop(ms),
      dispose: async () => {
        await dispose();
        await deps.database.close();
      },
    });
    this.#state = 'stopped';
  }

  /** On the port the entry point opened early, or on one opened here (tests, benchmarks). */
  async #serve(options: ListenOptions): Promise<Server> {
    const { adapter, upgrades, deps } = this.#parts;
    if ('listener' in options) {
      this.#server = options.listener.server;
      options.listener.serve(adapter, upgrades.handleUpgrade);
      return this.#server;
    }
    const server = createHttpServer(deps.config.http);
    this.#server = server;
    server.on('request', adapter);
    server.on('upgrade', upgrades.handleUpgrade);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port, options.host, () => resolve());
    });
    return server;
  }

  #startModules(): Promise<void> {
    if (this.#state !== 'built') throw new Error(`cannot start an app that is ${this.#state}`);
    this.#state = 'starting';
    this.#starting = this.#parts.lifecycle.start(() => this.#checkNotStopped());
    return this.#starting;
  }

  /** A stop that arrives while starting makes the start give up at its next step. */
  #checkNotStopped(): void {
    if (this.#state !== 'starting') throw new Error('the app was stopped while it was starting');
  }

  #beginWarmUp(): void {
    this.#warming = this.#parts.lifecycle.warmUp(() => this.#state === 'running').finally(this.#warmedUp);
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
