/** Every field of one event, and its `data` (the measured values and thresholds) as JSON. */
import { Badge, Drawer } from '../../ui.tsx';
import { label, type WatchdogEvent } from './model.ts';

export function EventDrawer({ event, onClose }: { event: WatchdogEvent; onClose: () => void }) {
  const asset = event.asset;
  return (
    <Drawer title="Event details" onClose={onClose}>
      <p class="ov-drawer-desc">{event.description}</p>
      <dl class="ov-details">
        <dt>Severity</dt>
        <dd>
          <Badge tone={event.severity.toLowerCase()}>{event.severity}</Badge>
        </dd>
        <dt>Occurred</dt>
        <dd>
          <time dateTime={event.occurredAt}>{new Date(event.occurredAt).toLocaleString()}</time>
          <span class="muted mono"> {event.occurredAt}</span>
        </dd>
        <dt>Watchdog</dt>
        <dd>
          {label(event.watchdog)} <span class="muted mono">{event.watchdog}</span>
        </dd>
        <dt>Event type</dt>
        <dd class="mono">{event.eventType}</dd>
        <dt>Symbol</dt>
        <dd class="mono">{event.symbol ?? 'none (market-wide)'}</dd>
        {asset ? <AssetFields asset={asset} /> : null}
        <dt>Event id</dt>
        <dd class="mono ov-break">{event.id}</dd>
      </dl>
      <h3>Data</h3>
      {/* Wrapped, not scrolled on its own: the drawer scrolls, so no nested scroll region without focus. */}
      <pre class="ov-data">{JSON.stringify(event.data, null, 2)}</pre>
    </Drawer>
  );
}

function AssetFields({ asset }: { asset: NonNullable<WatchdogEvent['asset']> }) {
  const rows: [string, string | null | undefined][] = [
    ['Asset name', asset.name],
    ['Asset type', asset.assetType],
    ['Exchange', asset.exchange],
    ['Market', asset.market],
    ['Currency', asset.currency],
    ['Pair', asset.pair ? asset.pair.join(' / ') : null],
  ];
  return (
    <>
      {rows.map(([name, value]) => [
        <dt key={`${name}-t`}>{name}</dt>,
        <dd key={`${name}-d`}>{value || '—'}</dd>,
      ])}
    </>
  );
}
