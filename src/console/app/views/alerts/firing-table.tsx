/** An alert's firings as a table: what became of each, what it was about, and its episode. */
import { Badge, formatTime } from '../../ui.tsx';
import {
  actionable,
  duration,
  type EpisodeAction,
  type EpisodeState,
  type Firing,
  type FiringStatus,
} from './firing-model.ts';
import { words } from './model.ts';

const STATUS_TONE: Record<FiringStatus, string> = {
  FIRED: 'high',
  ACKNOWLEDGED: 'info',
  GROUPED: 'info',
  SILENCED: 'muted',
  COOLDOWN: 'muted',
  RATE_LIMITED: 'warn',
  TEST: 'muted',
};
const STATE_TONE: Record<EpisodeState, string> = { FIRING: 'critical', ACKNOWLEDGED: 'warn', RESOLVED: 'ok' };

interface Props {
  rows: Firing[];
  writable: boolean;
  onAction: (action: EpisodeAction, firing: Firing) => void;
}

export function FiringTable({ rows, writable, onAction }: Props) {
  const withActions = actionable(rows);
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a table that scrolls sideways must be reachable by keyboard
    <section class="table-wrap" tabIndex={0} aria-label="Firings, newest first">
      <table class="al-firings">
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Status</th>
            <th scope="col">Kind</th>
            <th scope="col">Event</th>
            <th scope="col">Episode</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((f) => (
            <tr key={f.id}>
              <td class="al-time">{formatTime(f.firedAt)}</td>
              <td>
                <Badge tone={STATUS_TONE[f.status]}>{words(f.status)}</Badge>
                {f.silencedBy ? <div class="muted mono al-event-id">{f.silencedBy}</div> : null}
              </td>
              <td>{words(f.kind)}</td>
              <td class="al-target">
                {words(f.event.type)}
                {f.event.asset ? ` on ${f.event.asset.symbol}` : ''}{' '}
                <span class="muted">({words(f.event.severity)})</span>
                <div class="muted al-desc">{f.event.description}</div>
              </td>
              <td>
                <EpisodeCell firing={f} />
              </td>
              <td>{writable && withActions.has(f.id) ? <Actions firing={f} onAction={onAction} /> : null}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function EpisodeCell({ firing }: { firing: Firing }) {
  const e = firing.episode;
  if (!e) {
    const why =
      firing.status === 'TEST' ? 'test-send' : firing.groupKey ? `group ${firing.groupKey}` : 'none';
    return <span class="muted">{why}</span>;
  }
  return (
    <div class="al-episode">
      <Badge tone={STATE_TONE[e.state]}>{words(e.state)}</Badge> <span class="mono">{e.incidentKey}</span>
      <div class="muted">
        {e.firings} firing{e.firings === 1 ? '' : 's'} in {duration(e.durationSeconds)}
      </div>
      {e.acknowledgedBy ? (
        <div class="muted">
          acknowledged by {e.acknowledgedBy}
          {e.acknowledgementNote ? `: ${e.acknowledgementNote}` : ''}
        </div>
      ) : null}
      {e.resolvedReason ? (
        <div class="muted">
          resolved ({words(e.resolvedReason)}){e.resolvedBy ? ` by ${e.resolvedBy}` : ''}
          {e.resolutionNote ? `: ${e.resolutionNote}` : ''}
        </div>
      ) : null}
    </div>
  );
}

function Actions({ firing, onAction }: { firing: Firing; onAction: Props['onAction'] }) {
  return (
    <div class="al-actions">
      {firing.episode?.state === 'FIRING' ? (
        <button type="button" onClick={() => onAction('acknowledge', firing)}>
          Acknowledge
        </button>
      ) : null}
      <button type="button" onClick={() => onAction('resolve', firing)}>
        Resolve
      </button>
    </div>
  );
}
