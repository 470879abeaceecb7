/**
 * The record of an alert's firings and episodes, and acknowledging or resolving one of them, as
 * the caller's principal: the surfaces (GraphQL, and through it REST and MCP) call this, never the
 * repository. The alert is looked up as its owner first, so another owner's alert, and any firing
 * of it, is NOT_FOUND exactly as an unknown id is. Acknowledging and resolving are the episodes'
 * engine's (episodes.service.ts, reached through `EpisodeActions`); this only checks the caller's
 * input and names who acted (the principal's name).
 */
import type { Principal } from '../platform/access/principal.ts';
import type { Clock } from '../platform/clock.ts';
import type { Executor } from '../platform/db/database.ts';
import { AppError, ValidationError } from '../platform/errors.ts';
import type { Alert, AlertKey } from './alert.model.ts';
import type { FiringStatus } from './alerts.sql.ts';
import type { Episode, EpisodeState, Firing } from './episode.model.ts';
import { listEpisodes, listFirings } from './firings.repository.ts';

/** A listing's bound: `first` (GraphQL) or `limit` (REST, MCP). */
export const DEFAULT_RECORD_LIMIT = 50;
export const MAX_RECORD_LIMIT = 500;
/** An acknowledgement's or resolution's note, at most this many characters. */
export const MAX_NOTE_LENGTH = 1_000;

/**
 * The episodes' engine as this service uses it: acknowledging or resolving the episode of one
 * firing of an alert, answering the firing as it then is. It throws the domain's errors for a
 * firing that is unknown (FIRING_NOT_FOUND), has no episode (FIRING_HAS_NO_EPISODE) or whose
 * episode has resolved (EPISODE_RESOLVED, acknowledging only).
 */
export interface EpisodeActions {
  acknowledge(key: AlertKey, firingId: string, by: string, note: string | null): Promise<Firing>;
  resolve(key: AlertKey, firingId: string, by: string, note: string | null): Promise<Firing>;
}

export interface FiringRecordOptions {
  readonly db: Executor;
  readonly clock: Clock;
  /** The alert store's lookup as the caller (alert.service.ts): NOT_FOUND for an alert not theirs. */
  readonly store: { get(principal: Principal, id: string): Promise<Pick<Alert, 'owner' | 'id'>> };
  readonly episodes: EpisodeActions;
}

/** What a listing asks for: at most `limit`, of the given statuses or states only (none or empty: all). */
export interface RecordQuery<T extends string> {
  readonly limit?: number | null | undefined;
  readonly only?: readonly T[] | null | undefined;
}

export class FiringRecord {
  readonly #o: FiringRecordOptions;

  constructor(options: FiringRecordOptions) {
    this.#o = options;
  }

  /** The time an open episode's duration is counted to. */
  now(): Date {
    return this.#o.clock.now();
  }

  /** The firings of one of the caller's alerts, newest first. */
  async firings(
    principal: Principal,
    alertId: string,
    query: RecordQuery<FiringStatus>,
    limitName = 'first',
  ): Promise<Firing[]> {
    const limit = checkedLimit(query.limit, limitName);
    const key = await this.#alertKey(principal, alertId);
    return listFirings(this.#o.db, key, { limit, statuses: query.only ?? undefined });
  }

  /** The episodes of one of the caller's alerts, the latest started first. */
  async episodes(
    principal: Principal,
    alertId: string,
    query: RecordQuery<EpisodeState>,
    limitName = 'first',
  ): Promise<Episode[]> {
    const limit = checkedLimit(query.limit, limitName);
    const key = await this.#alertKey(principal, alertId);
    return listEpisodes(this.#o.db, key, { limit, states: query.only ?? undefined });
  }

  /** Acknowledges the episode of the firing, as the caller (the first acknowledgement stays). */
  async acknowledge(
    principal: Principal,
    alertId: string,
    firingId: string,
    note: string | null | undefined,
  ): Promise<Firing> {
    const checked = checkedNote(note);
    const key = await this.#alertKey(principal, alertId);
    return this.#o.episodes.acknowledge(key, firingId, principal.name, checked);
  }

  /** Resolves the episode of the firing, as the caller (a resolved one is answered as it is). */
  async resolve(
    principal: Principal,
    alertId: string,
    firingId: string,
    note: string | null | undefined,
  ): Promise<Firing> {
    const checked = checkedNote(note);
    const key = await this.#alertKey(principal, alertId);
    return this.#o.episodes.resolve(key, firingId, principal.name, checked);
  }

  /** The caller's alert's key; NOT_FOUND when the caller has no alert with this id. */
  async #alertKey(principal: Principal, alertId: string): Promise<AlertKey> {
    const alert = await this.#o.store.get(principal, alertId);
    return { owner: alert.owner, id: alert.id };
  }
}

/** A listing's bound, DEFAULT_RECORD_LIMIT when not given; BAD_USER_INPUT naming it when out of range. */
export function checkedLimit(limit: number | null | undefined, name: string): number {
  if (limit === null || limit === undefined) return DEFAULT_RECORD_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_RECORD_LIMIT)
    throw new ValidationError(name, `must be a whole number from 1 to ${MAX_RECORD_LIMIT}`);
  return limit;
}

/** A note as stored: null when absent or blank; INVALID_ARGUMENTS naming `note` when too long. */
export function checkedNote(note: string | null | undefined): string | null {
  if (note === null || note === undefined || note.trim() === '') return null;
  if (note.length > MAX_NOTE_LENGTH)
    throw new AppError('INVALID_ARGUMENTS', `note: at most ${MAX_NOTE_LENGTH} characters`, {
      issues: [{ field: 'note', message: `at most ${MAX_NOTE_LENGTH} characters` }],
      field: 'note',
    });
  return note;
}
