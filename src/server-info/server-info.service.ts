import { hostname } from 'node:os';
import type { Clock } from '../platform/clock.ts';
import type { Database, DatabaseMode } from '../platform/db/database.ts';
import type { Logger } from '../platform/observability/logger.ts';
import {
  deleteInstance,
  deleteInstancesSeenBefore,
  type InstanceRow,
  instancesSeenSince,
  touchInstance,
  upsertInstance,
} from './instances.repository.ts';

export const HEARTBEAT_INTERVAL_MS = 15_000;
/** An instance that missed three heartbeats is considered gone. */
const LIVE_WINDOW_MS = 3 * HEARTBEAT_INTERVAL_MS;
const FORGET_AFTER_MS = 24 * 60 * 60 * 1000;

export interface ServerInfo {
  readonly name: string;
  readonly version: string;
  readonly instanceId: string;
  readonly startedAt: Date;
  readonly uptimeSeconds: number;
  readonly databaseMode: DatabaseMode;
  readonly nodeVersion: string;
}

/**
 * This process's identity and its registration among the processes sharing the database.
 */
export class ServerInfoService {
  readonly #self: InstanceRow;
  #timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly logger: Logger,
    readonly databaseMode: DatabaseMode,
    readonly version: string,
    readonly instanceId: string,
  ) {
    const now = clock.now();
    this.#self = {
      id: instanceId,
      hostname: hostname(),
      pid: process.pid,
      version,
      startedAt: now,
      lastSeenAt: now,
    };
  }

  info(): ServerInfo {
    return {
      name: 'vigil',
      version: this.version,
      instanceId: this.instanceId,
      startedAt: this.#self.startedAt,
      uptimeSeconds: Math.max(0, (this.clock.now().getTime() - this.#self.startedAt.getTime()) / 1000),
      databaseMode: this.databaseMode,
      nodeVersion: process.version,
    };
  }

  /** Instances (this one included) that heartbeated recently, newest first. */
  async liveInstances(): Promise<InstanceRow[]> {
    return instancesSeenSince(this.db, new Date(this.clock.now().getTime() - LIVE_WINDOW_MS));
  }

  async register(): Promise<void> {
    const now = this.clock.now();
    await deleteInstancesSeenBefore(this.db, new Date(now.getTime() - FORGET_AFTER_MS));
    await upsertInstance(this.db, { ...this.#self, lastSeenAt: now });
    this.#timer = setInterval(() => {
      touchInstance(this.db, this.instanceId, this.clock.now()).catch((error: unknown) =>
        this.logger.warn({ err: error }, 'instance heartbeat failed'),
      );
    }, HEARTBEAT_INTERVAL_MS);
    this.#timer.unref();
  }

  async deregister(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await deleteInstance(this.db, this.instanceId);
  }
}
