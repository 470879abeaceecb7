/**
 * Alerts: the caller's alerts as a table (refreshed every few seconds, as last-triggered and the
 * counts move), a form to create and edit them, enable/disable, delete, a test-send with its result
 * per target, the firings (with their episodes, to acknowledge or resolve) and delivery record of
 * one alert (#/alerts/<id> opens them), and the caller's silences.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { useQuery, useStore } from '../api.ts';
import { go } from '../router.ts';
import { Card, Empty, ErrorNote, Loading } from '../ui.tsx';
import { can, viewer } from '../viewer.ts';
import { useAlertActions } from './alerts/actions.ts';
import { AlertForm } from './alerts/alert-form.tsx';
import { AlertList } from './alerts/alert-list.tsx';
import { Deliveries, TestResults } from './alerts/deliveries.tsx';
import { Firings } from './alerts/firings.tsx';
import { ALERTS_QUERY, type Alert } from './alerts/model.ts';
import { Silences } from './alerts/silences.tsx';
import { useEvery } from './alerts/use-every.ts';

const LIST_REFRESH_MS = 10_000;

export default function AlertsView({ param }: { param?: string }) {
  const writable = can(useStore(viewer), 'WRITE');
  const list = useQuery<{ alerts: Alert[] }>(ALERTS_QUERY);
  const [now, setNow] = useState(Date.now());
  useEvery(LIST_REFRESH_MS, () => {
    list.refetch();
    setNow(Date.now());
  });

  const {
    editing,
    setEditing,
    test,
    setTest,
    confirm,
    setConfirm,
    busy,
    notice,
    failure,
    sent,
    actions,
    remove,
    saved,
  } = useAlertActions(list.refetch, param);

  const alerts = list.data?.alerts;
  return (
    <div class="alerts-view">
      <div class="al-head">
        <h1>Alerts</h1>
        {writable && !editing ? (
          <button type="button" class="primary" onClick={() => setEditing({})}>
            New alert
          </button>
        ) : null}
      </div>
      <p class="al-notice" role="status">
        {notice}
      </p>
      {editing ? (
        <AlertForm
          key={editing.alert?.alertId ?? 'new'}
          alert={editing.alert}
          onSaved={saved}
          onCancel={() => setEditing(null)}
        />
      ) : null}
      {test ? <TestResults {...test} onClose={() => setTest(null)} /> : null}
      <Card title="Alert list">
        {failure ? <ErrorNote error={failure} /> : null}
        {confirm ? (
          <ConfirmDelete alert={confirm} onYes={() => remove(confirm)} onNo={() => setConfirm(null)} />
        ) : null}
        {list.error ? <ErrorNote error={list.error} action={list.refetch} /> : null}
        {!alerts && !list.error ? <Loading what="alerts" /> : null}
        {alerts && alerts.length === 0 ? (
          <Empty>
            No alerts yet.{' '}
            {writable
              ? 'Create one with "New alert": it can watch watchdog events, a price, a volume or an FK-DSL condition.'
              : 'Your key may read alerts but not create them.'}
          </Empty>
        ) : null}
        {alerts && alerts.length > 0 ? (
          <AlertList alerts={alerts} writable={writable} busy={busy} now={now} {...actions} />
        ) : null}
      </Card>
      <Silences writable={writable} />
      {param ? <Firings alertId={param} /> : null}
      {param ? <Deliveries alertId={param} refresh={sent} onClose={() => go('alerts')} /> : null}
    </div>
  );
}

function ConfirmDelete({ alert, onYes, onNo }: { alert: Alert; onYes: () => void; onNo: () => void }) {
  const yes = useRef<HTMLButtonElement>(null);
  useEffect(() => yes.current?.focus(), [alert]);
  return (
    <div class="al-confirm" role="alertdialog" aria-label="Confirm delete" aria-describedby="al-confirm-text">
      <p id="al-confirm-text">
        Delete alert <strong>{alert.name}</strong> (<span class="mono">{alert.alertId}</span>) with its firing
        and delivery record? This cannot be undone.
      </p>
      <div class="row">
        <button type="button" class="danger" ref={yes} onClick={onYes}>
          Yes, delete
        </button>
        <button type="button" onClick={onNo}>
          Keep it
        </button>
      </div>
    </div>
  );
}
