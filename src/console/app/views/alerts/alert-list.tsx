/** The alerts as a table, with the actions the caller may take on each. */
import { ago, Badge, formatNumber } from '../../ui.tsx';
import { type Alert, METHODS, triggerSummary } from './model.ts';

export interface RowActions {
  onTest: (a: Alert) => void;
  onToggle: (a: Alert) => void;
  onEdit: (a: Alert) => void;
  onDelete: (a: Alert) => void;
  onDeliveries: (a: Alert) => void;
}

interface Props extends RowActions {
  alerts: Alert[];
  /** WRITE scope: the mutating buttons are shown. */
  writable: boolean;
  /** The alert whose action is under way (its buttons wait). */
  busy: string | undefined;
  now: number;
}

const methodLabel = (id: string) => METHODS.find((m) => m.id === id)?.label ?? id;

export function AlertList(p: Props) {
  return (
    <div class="table-wrap">
      <table class="alert-table">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col" class="hide-narrow">
              Id
            </th>
            <th scope="col" class="hide-narrow">
              Trigger
            </th>
            <th scope="col" class="hide-narrow">
              Methods
            </th>
            <th scope="col">Enabled</th>
            <th scope="col" class="hide-narrow">
              Last triggered
            </th>
            <th scope="col" class="num hide-narrow">
              Triggers
            </th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {p.alerts.map((a) => (
            <Row key={`${a.owner ?? ''}/${a.alertId}`} a={a} {...p} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Row({ a, writable, busy, now, ...act }: Props & { a: Alert }) {
  // An admin also sees other owners' alerts; the mutations address the caller's own, so those are read-only here.
  const own = a.owner === null;
  const waiting = busy === a.alertId;
  return (
    <tr>
      <td>
        <strong>{a.name}</strong>
        {a.description ? <div class="muted al-desc">{a.description}</div> : null}
        {own ? null : <div class="muted">owner {a.owner}</div>}
        <Narrow a={a} now={now} />
      </td>
      <td class="mono hide-narrow">{a.alertId}</td>
      <td class="al-trigger hide-narrow">{triggerSummary(a.trigger)}</td>
      <td class="hide-narrow">{a.deliveryMethods.map(methodLabel).join(', ')}</td>
      <td>
        <Badge tone={a.enabled ? 'ok' : 'disabled'}>{a.enabled ? 'enabled' : 'disabled'}</Badge>
      </td>
      <td class="hide-narrow" title={a.lastTriggered ?? undefined}>
        {ago(a.lastTriggered, now)}
      </td>
      <td class="num hide-narrow">{formatNumber(a.triggerCount)}</td>
      <td>
        <div class="al-actions">
          {writable && own ? (
            <>
              <button type="button" disabled={waiting} onClick={() => act.onTest(a)}>
                Test-send
              </button>
              <button type="button" disabled={waiting} onClick={() => act.onToggle(a)}>
                {a.enabled ? 'Disable' : 'Enable'}
              </button>
              <button type="button" disabled={waiting} onClick={() => act.onEdit(a)}>
                Edit
              </button>
              <button type="button" class="danger" disabled={waiting} onClick={() => act.onDelete(a)}>
                Delete
              </button>
            </>
          ) : null}
          {own ? (
            <button type="button" onClick={() => act.onDeliveries(a)}>
              Deliveries
            </button>
          ) : (
            <span class="muted">another owner's: read-only</span>
          )}
        </div>
      </td>
    </tr>
  );
}

/** On a narrow screen the columns that do not fit are shown under the name instead. */
function Narrow({ a, now }: { a: Alert; now: number }) {
  return (
    <dl class="al-narrow">
      <dt>Id</dt>
      <dd class="mono">{a.alertId}</dd>
      <dt>Trigger</dt>
      <dd>{triggerSummary(a.trigger)}</dd>
      <dt>Methods</dt>
      <dd>{a.deliveryMethods.map(methodLabel).join(', ')}</dd>
      <dt>Last triggered</dt>
      <dd>
        {ago(a.lastTriggered, now)} ({formatNumber(a.triggerCount)} in all)
      </dd>
    </dl>
  );
}
