/**
 * Reading the record of an alert's firings and episodes (alerts.sql.ts `alert_firings`,
 * `alert_episodes`, `alert_groups`) as the alerts domain sees it (episode.model.ts). Writes belong
 * to firing and to the episodes' engine; these statements only read, always within one alert (its
 * owner and id), so another owner's firing is never found by its id.
 *
 * A firing comes with its episode (a left join: test-sends, silenced firings and group notices have
 * none) and its group's key (a grouped alert's firings). An episode's state is read from its
 * fields (`episodeState`); its duration depends on the time asked, so the surfaces compute it.
 */
import { and, desc, eq, inArray, isNotNull, isNull, or, type SQL } from 'drizzle-orm';
import type { Executor } from '../platform/db/database.ts';
import type { AlertKey } from './alert.model.ts';
import { alertEventOfStored } from './alert-event.wire.ts';
import { alertEpisodes, alertFirings, alertGroups, type FiringStatus } from './alerts.sql.ts';
import {
  type Episode,
  type EpisodeState,
  episodeState,
  type Firing,
  type ResolvedReason,
} from './episode.model.ts';

type EpisodeRow = typeof alertEpisodes.$inferSelect;
type FiringRow = typeof alertFirings.$inferSelect;

const RESOLVED_REASONS: readonly string[] = ['cleared', 'timeout', 'manual'] satisfies ResolvedReason[];

export function episodeOfRow(row: EpisodeRow): Episode {
  return {
    id: row.id,
    alertId: row.alertId,
    incidentKey: row.incidentKey,
    state: episodeState(row),
    startedAt: row.startedAt,
    lastEventAt: row.lastEventAt,
    firings: row.firings,
    acknowledgedAt: row.acknowledgedAt,
    acknowledgedBy: row.acknowledgedBy,
    acknowledgementNote: row.acknowledgementNote,
    resolvedAt: row.resolvedAt,
    // Written by the engine from ResolvedReason; anything else (never written) reads as unknown.
    resolvedReason:
      row.resolvedReason !== null && RESOLVED_REASONS.includes(row.resolvedReason)
        ? (row.resolvedReason as ResolvedReason)
        : null,
    resolvedBy: row.resolvedBy,
    resolutionNote: row.resolutionNote,
  };
}

function firingOfRow(row: FiringRow, episode: EpisodeRow | null, groupKey: string | null): Firing {
  return {
    id: row.id,
    alertId: row.alertId,
    status: row.status,
    kind: row.kind,
    event: alertEventOfStored(row.event),
    firedAt: row.firedAt,
    silencedBy: row.silencedBy,
    episode: episode ? episodeOfRow(episode) : null,
    groupKey,
  };
}

const ofAlert = (key: AlertKey) => and(eq(alertFirings.owner, key.owner), eq(alertFirings.alertId, key.id));

/** The firings of `where`, newest first, each with its episode and group key. */
async function selectFirings(db: Executor, where: SQL | undefined, limit: number): Promise<Firing[]> {
  const rows = await db
    .select({ firing: alertFirings, episode: alertEpisodes, groupKey: alertGroups.groupKey })
    .from(alertFirings)
    .leftJoin(
      alertEpisodes,
      and(eq(alertEpisodes.id, alertFirings.episodeId), eq(alertEpisodes.owner, alertFirings.owner)),
    )
    .leftJoin(
      alertGroups,
      and(eq(alertGroups.id, alertFirings.groupId), eq(alertGroups.owner, alertFirings.owner)),
    )
    .where(where)
    .orderBy(desc(alertFirings.firedAt), desc(alertFirings.id))
    .limit(limit);
  return rows.map((r) => firingOfRow(r.firing, r.episode, r.groupKey));
}

/** The alert's firings, newest first: at most `limit`, of `statuses` only when given (and not empty). */
export function listFirings(
  db: Executor,
  key: AlertKey,
  options: { readonly limit: number; readonly statuses?: readonly FiringStatus[] | undefined },
): Promise<Firing[]> {
  const { statuses } = options;
  const byStatus = statuses && statuses.length > 0 ? inArray(alertFirings.status, [...statuses]) : undefined;
  return selectFirings(db, and(ofAlert(key), byStatus), options.limit);
}

/** One firing of the alert; null when the alert has none with this id. */
export async function firingById(db: Executor, key: AlertKey, firingId: string): Promise<Firing | null> {
  const [firing] = await selectFirings(db, and(ofAlert(key), eq(alertFirings.id, firingId)), 1);
  return firing ?? null;
}

/** Where an episode's fields put it in `state` (the SQL of `episodeState`). */
function inState(state: EpisodeState): SQL | undefined {
  switch (state) {
    case 'resolved':
      return isNotNull(alertEpisodes.resolvedAt);
    case 'acknowledged':
      return and(isNull(alertEpisodes.resolvedAt), isNotNull(alertEpisodes.acknowledgedAt));
    case 'firing':
      return and(isNull(alertEpisodes.resolvedAt), isNull(alertEpisodes.acknowledgedAt));
  }
}

const episodesOfAlert = (key: AlertKey) =>
  and(eq(alertEpisodes.owner, key.owner), eq(alertEpisodes.alertId, key.id));

/** The alert's episodes, the latest started first: at most `limit`, in `states` only when given (and not empty). */
export async function listEpisodes(
  db: Executor,
  key: AlertKey,
  options: { readonly limit: number; readonly states?: readonly EpisodeState[] | undefined },
): Promise<Episode[]> {
  const { states } = options;
  const byState = states && states.length > 0 ? or(...states.map(inState)) : undefined;
  const rows = await db
    .select()
    .from(alertEpisodes)
    .where(and(episodesOfAlert(key), byState))
    .orderBy(desc(alertEpisodes.startedAt), desc(alertEpisodes.id))
    .limit(options.limit);
  return rows.map(episodeOfRow);
}

/** One episode of the alert; null when the alert has none with this id. */
export async function episodeById(db: Executor, key: AlertKey, episodeId: string): Promise<Episode | null> {
  const [row] = await db
    .select()
    .from(alertEpisodes)
    .where(and(episodesOfAlert(key), eq(alertEpisodes.id, episodeId)));
  return row ? episodeOfRow(row) : null;
}
