import { hostname } from 'node:os';
import type { Clock } from '../platform/clock.ts';
import type { Database, DatabaseMode } from '../platform/db/database.ts';
import type { Logger } from '../platform/observability/logger.ts';
import {
  deleteInstance,
  deleteInstancesSeenBefore,
  type InstanceRow,
  instanceIdsSeenSince,
  instancesSeenSince,
  upsertInstance,
} from './instances.repository.ts';

export const HEARTBEAT_INTERVAL_MS = 15_000;
/** An instance that missed three heartbeats is considered gone. */
const LIVE_WINDOW_MS = 3 * HEARTBEAT_INTERVAL_MS;
/** Gone instances leave the table soon after, so listings and recovery never see them again. */
const FORGET_AFTER_MS = 3 * LIVE_WINDOW_MS;

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
  readonly #listeners = new Set<() => Promise<void>>();
  #timer: NodeJS.Timeout | undefined;
  #beating = false;
  #stopped = false;

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

  /**
   * Ids of the instances that heartbeated recently, this one included. The embedded database
   * admits one process at a time (its data directory is locked), so there any other is gone.
   */
  async liveInstanceIds(): Promise<string[]> {
    if (this.databaseMode === 'pglite') return [this.instanceId];
    const since = new Date(this.clock.now().getTime() - LIVE_WINDOW_MS);
    return [...new Set([this.instanceId, ...(await instanceIdsSeenSince(this.db, since))])];
  }

  /** `listener` runs after each heartbeat (work that checks on peers); returns the unsubscribe. */
  onHeartbeat(listener: () => Promise<void>): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  async register(): Promise<void> {
    this.#stopped = false;
    await this.#markSeen();
    clearInterval(this.#timer);
    this.#timer = setInterval(() => void this.heartbeat(), HEARTBEAT_INTERVAL_MS);
    this.#timer.unref();
  }

  /**
   * Marks this instance seen (inserting it again if a peer forgot it during a long stall), forgets
   * instances gone for a while, then runs the listeners. A beat still running skips the next one.
   */
  async heartbeat(): Promise<void> {
    if (this.#beating || this.#stopped) return;
    this.#beating = true;
    try {
      await this.#markSeen();
      for (const listener of this.#listeners) {
        await listener().catch((error: unknown) =>
          this.logger.warn({ err: error }, 'heartbeat listener failed'),
        );
      }
    } catch (error) {
      this.logger.warn({ err: error }, 'instance heartbeat failed');
    } finally {
      this.#beating = false;
    }
  }

  async deregister(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#timer);
    this.#timer = undefined;
    await deleteInstance(this.db, this.instanceId);
  }

  async #markSeen(): Promise<void> {
    const now = this.clock.now();
    await upsertInstance(this.db, { ...this.#self, lastSeenAt: now });
    await deleteInstancesSeenBefore(this.db, new Date(now.getTime() - FORGET_AFTER_MS));
  }
}
