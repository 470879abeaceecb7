/**
 * The live event feed. Filtering re-subscribes with the filter on the server (rather than
 * filtering client-side): the replay of the newest matching events then fills the list even for a
 * rare watchdog or asset, and the socket carries only what is shown. Changing a filter remounts
 * the feed (keyed by the filter), which drops the old list and subscription.
 */
import { useCallback, useEffect, useMemo, useState } from 'preact/hooks';
import { Card } from '../../ui.tsx';
import { EventDrawer } from './event-drawer.tsx';
import { Feed } from './feed.tsx';
import { type EventFilter, label, SEVERITIES, WATCHDOGS, type WatchdogEvent } from './model.ts';

export function LiveEventsCard() {
  const [watchdog, setWatchdog] = useState('');
  const [severity, setSeverity] = useState('');
  const [assetText, setAssetText] = useState('');
  const [asset, setAsset] = useState('');
  const [open, setOpen] = useState<WatchdogEvent | undefined>(undefined);
  // Stable, so that the drawer does not re-run its focus handling on each render.
  const close = useCallback(() => setOpen(undefined), []);

  // Typing a symbol re-subscribes once the typing pauses, not on every key.
  useEffect(() => {
    const timer = setTimeout(() => setAsset(assetText.trim().toUpperCase()), 400);
    return () => clearTimeout(timer);
  }, [assetText]);

  const filter = useMemo<EventFilter>(
    () => ({
      ...(watchdog ? { watchdogs: [watchdog] } : {}),
      ...(severity ? { severities: [severity] } : {}),
      ...(asset ? { symbols: [asset] } : {}),
    }),
    [watchdog, severity, asset],
  );
  const key = JSON.stringify(filter);
  const filtered = key !== '{}';
  const clear = () => {
    setWatchdog('');
    setSeverity('');
    setAssetText('');
    setAsset('');
  };

  return (
    <Card title="Live events">
      <div class="ov-filters">
        <div>
          <label for="ov-watchdog">Watchdog</label>
          <select id="ov-watchdog" value={watchdog} onChange={(e) => setWatchdog(e.currentTarget.value)}>
            <option value="">All watchdogs</option>
            {WATCHDOGS.map((w) => (
              <option key={w} value={w}>
                {label(w)}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="ov-severity">Severity</label>
          <select id="ov-severity" value={severity} onChange={(e) => setSeverity(e.currentTarget.value)}>
            <option value="">All severities</option>
            {SEVERITIES.map((s) => (
              <option key={s} value={s}>
                {label(s)}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="ov-asset">Asset</label>
          <input
            id="ov-asset"
            type="search"
            value={assetText}
            placeholder="BTC/USDT"
            autoComplete="off"
            spellcheck={false}
            onInput={(e) => setAssetText(e.currentTarget.value)}
          />
        </div>
        {filtered || assetText ? (
          <button type="button" class="ov-clear" onClick={clear}>
            Clear filters
          </button>
        ) : null}
      </div>
      <Feed key={key} filter={filter} filtered={filtered} onOpen={setOpen} />
      {open ? <EventDrawer event={open} onClose={close} /> : null}
    </Card>
  );
}
