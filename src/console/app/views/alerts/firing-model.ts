/**
 * An alert's firings as the API returns them (alertFirings, newest first, each with its episode),
 * and the two things an operator does to an episode through one of its firings: acknowledge it
 * (its condition's firings are recorded, not delivered, until it resolves) and resolve it.
 */

export type FiringStatus =
  | 'FIRED'
  | 'COOLDOWN'
  | 'RATE_LIMITED'
  | 'SILENCED'
  | 'ACKNOWLEDGED'
  | 'GROUPED'
  | 'TEST';
export type FiringKind = 'EVENT' | 'GROUP' | 'RESOLVED' | 'ACKNOWLEDGED';
export type EpisodeState = 'FIRING' | 'ACKNOWLEDGED' | 'RESOLVED';

export interface Episode {
  id: string;
  incidentKey: string;
  state: EpisodeState;
  startedAt: string;
  lastEventAt: string;
  firings: number;
  durationSeconds: number;
  acknowledgedAt: string | null;
  acknowledgedBy: string | null;
  acknowledgementNote: string | null;
  resolvedAt: string | null;
  resolvedReason: 'CLEARED' | 'TIMEOUT' | 'MANUAL' | null;
  resolvedBy: string | null;
  resolutionNote: string | null;
}

export interface Firing {
  id: string;
  status: FiringStatus;
  kind: FiringKind;
  firedAt: string;
  silencedBy: string | null;
  groupKey: string | null;
  event: {
    eventId: string;
    type: string;
    severity: string;
    description: string;
    asset: { symbol: string } | null;
  };
  episode: Episode | null;
}

const FIRING_FIELDS = `id status kind firedAt silencedBy groupKey
  event { eventId type severity description asset { symbol } }
  episode { id incidentKey state startedAt lastEventAt firings durationSeconds acknowledgedAt acknowledgedBy
    acknowledgementNote resolvedAt resolvedReason resolvedBy resolutionNote }`;

export const FIRINGS_QUERY = `query($alertId: ID!, $first: Int) { alertFirings(alertId: $alertId, first: $first) { ${FIRING_FIELDS} } }`;
export const ACKNOWLEDGE_FIRING = `mutation($alertId: ID!, $firingId: ID!, $note: String) {
  acknowledgeAlertFiring(alertId: $alertId, firingId: $firingId, note: $note) { ${FIRING_FIELDS} } }`;
export const RESOLVE_FIRING = `mutation($alertId: ID!, $firingId: ID!, $note: String) {
  resolveAlertFiring(alertId: $alertId, firingId: $firingId, note: $note) { ${FIRING_FIELDS} } }`;

export type EpisodeAction = 'acknowledge' | 'resolve';

/**
 * The firings whose row offers the episode's actions: the newest firing of each open episode (every
 * firing of an episode would do the same; one button per episode keeps the table readable).
 */
export function actionable(firings: readonly Firing[]): Set<string> {
  const seen = new Set<string>();
  const rows = new Set<string>();
  for (const f of firings) {
    const e = f.episode;
    if (!e || e.state === 'RESOLVED' || seen.has(e.id)) continue;
    seen.add(e.id);
    rows.add(f.id);
  }
  return rows;
}

/** "4 min 10 s", "2 h 5 min", "3 d 1 h": an episode's length. */
export function duration(seconds: number): string {
  const units: [number, string][] = [
    [86_400, 'd'],
    [3600, 'h'],
    [60, 'min'],
    [1, 's'],
  ];
  const parts: string[] = [];
  let rest = Math.max(0, Math.round(seconds));
  for (const [size, name] of units) {
    if (rest >= size || (size === 1 && parts.length === 0)) {
      parts.push(`${Math.floor(rest / size)} ${name}`);
      rest %= size;
    }
    if (parts.length === 2) break;
  }
  return parts.join(' ');
}
