/** Test-send results and the delivery record of one alert. */
import { useEffect, useRef, useState } from 'preact/hooks';
import { type ApiError, apiError, fetchQuery, mutate, useStore } from '../../api.ts';
import { Badge, Card, Empty, ErrorNote, formatNumber, formatTime, Loading } from '../../ui.tsx';
import { can, viewer } from '../../viewer.ts';
import { type AttemptStatus, DELIVERIES_QUERY, type DeliveryAttempt, type TestSend, words } from './model.ts';

const REFRESH_MS = 4000;
const LIMIT = 100;

function Status({ status }: { status: AttemptStatus }) {
  return <Badge tone={status.toLowerCase()}>{words(status)}</Badge>;
}

function ms(value: number): string {
  return `${formatNumber(value)} ms`;
}

export function TestResults(p: {
  alertId: string;
  result?: TestSend;
  error?: ApiError;
  onClose: () => void;
}) {
  const close = (
    <button type="button" onClick={p.onClose}>
      Close
    </button>
  );
  return (
    <Card title="Test-send results" actions={close}>
      <p class="muted">
        Alert <span class="mono">{p.alertId}</span>
      </p>
      {p.error ? <ErrorNote error={p.error} /> : null}
      {!p.error && !p.result ? <Loading what="the test-send" /> : null}
      {p.result && p.result.results.length === 0 ? <Empty>The alert has no delivery target.</Empty> : null}
      {p.result && p.result.results.length > 0 ? (
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a table that scrolls sideways must be reachable by keyboard
        <section class="table-wrap" tabIndex={0} aria-label="Outcome per target">
          <table class="al-results">
            <thead>
              <tr>
                <th scope="col">Method</th>
                <th scope="col">Target</th>
                <th scope="col">Status</th>
                <th scope="col" class="num">
                  Response
                </th>
                <th scope="col" class="num">
                  Latency
                </th>
                <th scope="col">Error</th>
              </tr>
            </thead>
            <tbody>
              {p.result.results.map((r) => (
                <tr key={r.deliveryId}>
                  <td>{words(r.method)}</td>
                  <td class="al-target">{r.target ?? 'not configured'}</td>
                  <td>
                    <Status status={r.status} />
                  </td>
                  <td class="num">{r.responseCode ?? '—'}</td>
                  <td class="num">{ms(r.latencyMs)}</td>
                  <td class="al-error">{r.error ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      ) : null}
    </Card>
  );
}

/** The record, newest first, fetched again every few seconds while it is open. */
function useDeliveries(alertId: string, round: number) {
  const [state, setState] = useState<{ rows?: DeliveryAttempt[]; error?: ApiError; at?: number }>({});
  useEffect(() => {
    let live = true;
    const load = () =>
      fetchQuery<{ alertDeliveries: DeliveryAttempt[] }>(DELIVERIES_QUERY, { id: alertId, limit: LIMIT })
        .then((d) => live && setState({ rows: d.alertDeliveries, at: Date.now() }))
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

export function Deliveries({
  alertId,
  refresh,
  onClose,
}: {
  alertId: string;
  refresh: number;
  onClose: () => void;
}) {
  const [round, setRound] = useState(0);
  const { rows, error, at } = useDeliveries(alertId, round + refresh);
  const who = useStore(viewer);
  const redelivery = useRedelivery(alertId, () => setRound((r) => r + 1));
  const box = useRef<HTMLDivElement>(null);
  // Opened from a row further down: bring the record into view.
  useEffect(() => box.current?.scrollIntoView({ block: 'nearest' }), [alertId]);
  const failed = !!rows?.some((r) => r.status === 'FAILED');
  const actions = (
    <>
      {can(who, 'WRITE') && failed ? (
        <button type="button" disabled={redelivery.busy} onClick={redelivery.run}>
          {redelivery.busy ? 'Redelivering…' : 'Redeliver failed'}
        </button>
      ) : null}
      <button type="button" onClick={() => setRound((r) => r + 1)}>
        Refresh
      </button>
      <button type="button" onClick={onClose}>
        Close
      </button>
    </>
  );
  return (
    <div ref={box} class="al-deliveries">
      <Card title="Deliveries" actions={actions}>
        <p class="muted">
          Alert <span class="mono">{alertId}</span>: the newest {LIMIT} attempts, refreshed every{' '}
          {REFRESH_MS / 1000} s{at ? ` (last at ${new Date(at).toLocaleTimeString()})` : ''}.
        </p>
        {redelivery.note ? (
          <p class="muted" role="status">
            {redelivery.note}
          </p>
        ) : null}
        {redelivery.error ? <ErrorNote error={redelivery.error} /> : null}
        {error ? <ErrorNote error={error} action={() => setRound((r) => r + 1)} /> : null}
        {!rows && !error ? <Loading what="deliveries" /> : null}
        {rows && rows.length === 0 ? (
          <Empty>No deliveries yet: none is made until the alert fires or is test-sent.</Empty>
        ) : null}
        {rows && rows.length > 0 ? <DeliveryTable rows={rows} /> : null}
      </Card>
    </div>
  );
}

const REDELIVER = `mutation($id: String!) { redeliverAlertDeliveries(id: $id) {
  deliveries { deliveryId skipped } } }`;

/**
 * Puts every failed delivery of the alert back in the queue (redeliverAlertDeliveries): each keeps
 * its id and record and gets a fresh set of attempts; a target the alert no longer has is skipped.
 */
function useRedelivery(alertId: string, done: () => void) {
  const [busy, setBusy] = useState(false);
  const [note, setNote] = useState<string | undefined>(undefined);
  const [error, setError] = useState<ApiError | undefined>(undefined);
  const run = async () => {
    setBusy(true);
    setError(undefined);
    setNote(undefined);
    try {
      const data = await mutate<{
        redeliverAlertDeliveries: { deliveries: { deliveryId: string; skipped: string | null }[] };
      }>(REDELIVER, { id: alertId });
      const all = data.redeliverAlertDeliveries.deliveries;
      const back = all.filter((d) => !d.skipped).length;
      const skipped = all.length - back;
      setNote(
        all.length === 0
          ? 'No failed delivery to redeliver: each has been delivered or is under way.'
          : `${back} failed deliver${back === 1 ? 'y' : 'ies'} put back in the queue` +
              (skipped ? `; ${skipped} skipped (see the record)` : '') +
              `. ${back === 1 ? 'Its' : 'Their'} new attempts appear below.`,
      );
      done();
    } catch (caught) {
      setError(apiError(caught));
    } finally {
      setBusy(false);
    }
  };
  return { busy, note, error, run };
}

function DeliveryTable({ rows }: { rows: DeliveryAttempt[] }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a table that scrolls sideways must be reachable by keyboard
    <section class="table-wrap" tabIndex={0} aria-label="Attempts, newest first">
      <table class="al-log">
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Method</th>
            <th scope="col">Target</th>
            <th scope="col">Status</th>
            <th scope="col" class="num">
              Attempt
            </th>
            <th scope="col" class="num">
              Response
            </th>
            <th scope="col" class="num">
              Latency
            </th>
            <th scope="col">Error</th>
            <th scope="col">Event</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.id}>
              <td class="al-time">{formatTime(r.attemptedAt)}</td>
              <td>{words(r.method)}</td>
              <td class="al-target">{r.target ?? 'every target'}</td>
              <td>
                <Status status={r.status} />
              </td>
              <td class="num">{r.attempt}</td>
              <td class="num">{r.responseCode ?? '—'}</td>
              <td class="num">{ms(r.latencyMs)}</td>
              <td class="al-error">{r.error ?? ''}</td>
              <td>
                {r.event ? (
                  <>
                    {words(r.event.type)}
                    {r.event.watchdog ? <span class="muted"> ({words(r.event.watchdog)})</span> : null}
                    <div class="mono muted al-event-id">{r.event.eventId}</div>
                  </>
                ) : (
                  <span class="muted">no longer stored</span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
