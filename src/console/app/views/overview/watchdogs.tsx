/** The health board: one tile per watchdog, refreshed every 10 s and soon after an event arrives. */
import { useQuery } from '../../api.ts';
import { ago, Badge, Card, ErrorNote, formatNumber, formatTime, Loading } from '../../ui.tsx';
import { useNow, useRefresh } from './hooks.ts';
import { label, statusTone, WATCHDOGS_QUERY, type WatchdogHealth } from './model.ts';

export function WatchdogsCard({
  signal,
  today,
}: {
  /** Changes when an event arrives. */
  signal: number;
  /** Events since local midnight per watchdog; undefined while counting. */
  today: Readonly<Record<string, number>> | undefined;
}) {
  const health = useQuery<{ watchdogs: WatchdogHealth[] }>(WATCHDOGS_QUERY);
  const now = useNow();
  useRefresh(health.refetch, signal, 1_000, 10_000);
  const list = health.data?.watchdogs;
  const running = list?.filter((w) => w.status === 'RUNNING').length ?? 0;
  return (
    <Card
      title="Watchdogs"
      actions={list ? <span class="muted">{`${running} of ${list.length} running`}</span> : undefined}
    >
      {health.error ? <ErrorNote error={health.error} action={health.refetch} /> : null}
      {list ? (
        <ul class="tiles ov-board">
          {list.map((w) => (
            <WatchdogTile
              key={w.name}
              health={w}
              now={now}
              today={today?.[w.name] ?? (today ? 0 : undefined)}
            />
          ))}
        </ul>
      ) : health.error ? null : (
        <Loading what="watchdogs" />
      )}
    </Card>
  );
}

function WatchdogTile({
  health,
  now,
  today,
}: {
  health: WatchdogHealth;
  now: number;
  today: number | undefined;
}) {
  const id = `wd-${health.name.toLowerCase()}`;
  return (
    <li class="tile ov-tile" aria-labelledby={id}>
      <div class="ov-tile-head">
        <h3 id={id}>{label(health.name)}</h3>
        <Badge tone={statusTone(health.status)}>{health.status}</Badge>
      </div>
      <p class="ov-code mono muted">{health.name}</p>
      <p class="hint">{health.description}</p>
      <dl class="ov-facts">
        <dt>Last check</dt>
        <dd>
          {health.lastCheck ? (
            <time dateTime={health.lastCheck} title={formatTime(health.lastCheck)}>
              {ago(health.lastCheck, now)}
            </time>
          ) : (
            'not yet'
          )}
        </dd>
        <dt>Events today</dt>
        <dd>{today === undefined ? '…' : formatNumber(today)}</dd>
        <dt>Errors</dt>
        <dd class={health.errors > 0 ? 'down' : undefined}>
          {formatNumber(health.errors)}
          {health.consecutiveFailures > 0 ? ` (${health.consecutiveFailures} in a row)` : ''}
        </dd>
      </dl>
      {health.lastError ? (
        <p class="ov-last-error">
          <span class="muted">Last error: </span>
          {health.lastError}
        </p>
      ) : null}
    </li>
  );
}
