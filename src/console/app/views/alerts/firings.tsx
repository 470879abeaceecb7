/**
 * The firings of one alert (#/alerts/<id>), newest first, refreshed every few seconds, each with its
 * episode; with the write scope, an open episode can be acknowledged or resolved from its newest
 * firing.
 */
import { useEffect, useState } from 'preact/hooks';
import { type ApiError, fetchQuery, useStore } from '../../api.ts';
import { Card, Empty, ErrorNote, Loading } from '../../ui.tsx';
import { can, viewer } from '../../viewer.ts';
import { EpisodeActionForm } from './episode-action.tsx';
import { type EpisodeAction, FIRINGS_QUERY, type Firing } from './firing-model.ts';
import { FiringTable } from './firing-table.tsx';
import { words } from './model.ts';

const REFRESH_MS = 5000;
const LIMIT = 50;

/** The newest firings, fetched again every few seconds and whenever `round` changes. */
function useFirings(alertId: string, round: number) {
  const [state, setState] = useState<{ rows?: Firing[]; error?: ApiError }>({});
  useEffect(() => {
    let live = true;
    const load = () =>
      fetchQuery<{ alertFirings: Firing[] }>(FIRINGS_QUERY, { alertId, first: LIMIT })
        .then((d) => live && setState({ rows: d.alertFirings }))
        .catch((e: ApiError) => live && setState((s) => ({ ...s, error: e })));
    load();
    const timer = setInterval(load, REFRESH_MS);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [alertId, round]);
  return state;
}

export function Firings({ alertId }: { alertId: string }) {
  const writable = can(useStore(viewer), 'WRITE');
  const [round, setRound] = useState(0);
  const { rows, error } = useFirings(alertId, round);
  const [pending, setPending] = useState<{ action: EpisodeAction; firing: Firing } | null>(null);
  const [notice, setNotice] = useState('');
  const done = (answered: Firing) => {
    setPending(null);
    const e = answered.episode;
    setNotice(e ? `Episode ${e.incidentKey} is ${words(e.state)}.` : 'Done.');
    setRound((r) => r + 1);
  };
  const refresh = (
    <button type="button" onClick={() => setRound((r) => r + 1)}>
      Refresh
    </button>
  );
  return (
    <Card title="Firings" actions={refresh}>
      <p class="muted">
        Alert <span class="mono">{alertId}</span>: the newest {LIMIT} firings, refreshed every{' '}
        {REFRESH_MS / 1000} s. Firings of one condition form an episode, open until it resolves.
      </p>
      <p class="al-notice" role="status">
        {notice}
      </p>
      {pending ? (
        <EpisodeActionForm
          key={`${pending.action}/${pending.firing.id}`}
          alertId={alertId}
          action={pending.action}
          firing={pending.firing}
          onDone={done}
          onCancel={() => setPending(null)}
        />
      ) : null}
      {error ? <ErrorNote error={error} action={() => setRound((r) => r + 1)} /> : null}
      {!rows && !error ? <Loading what="firings" /> : null}
      {rows && rows.length === 0 ? <Empty>No firings yet: the alert has not fired.</Empty> : null}
      {rows && rows.length > 0 ? (
        <FiringTable
          rows={rows}
          writable={writable}
          onAction={(action, firing) => setPending({ action, firing })}
        />
      ) : null}
    </Card>
  );
}
