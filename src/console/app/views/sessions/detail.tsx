/** One session: its facts, assets, context, recorded queries and stored results; extend and archive with WRITE. */
import { useQuery, useStore } from '../../api.ts';
import { href } from '../../router.ts';
import { Badge, Card, Empty, ErrorNote, formatNumber, formatTime, Loading } from '../../ui.tsx';
import { can, viewer } from '../../viewer.ts';
import { TableWrap } from '../fk-dsl/table-wrap.tsx';
import { SessionActions } from './actions.tsx';
import { QueryHistory } from './history.tsx';
import { DETAIL, hoursText, type Session, STATE_TONE } from './queries.ts';

export function SessionDetail({ id }: { id: string }) {
  const who = useStore(viewer);
  const { data, error, loading, refetch } = useQuery<{ analysisSession: Session }>(DETAIL, { id }, [id]);
  const s = data?.analysisSession;
  return (
    <>
      <p>
        <a href={href('sessions')}>← All sessions</a>
      </p>
      {error ? (
        <ErrorNote
          error={
            error.code === 'NOT_FOUND' ? `No session ${id} (unknown, deleted, or someone else's).` : error
          }
          action={error.code === 'NOT_FOUND' ? undefined : refetch}
        />
      ) : null}
      {!s ? (
        loading ? (
          <Loading what="the session" />
        ) : null
      ) : (
        <>
          <Card title={`Session ${s.id}`}>
            <Facts s={s} />
            {can(who, 'WRITE') && s.state === 'ACTIVE' ? <SessionActions id={s.id} onDone={refetch} /> : null}
            {s.state !== 'ACTIVE' ? (
              <p class="hint">
                This session is {s.state.toLowerCase()}: it can be read, not used, extended or changed.
              </p>
            ) : null}
          </Card>
          <div class="grid">
            <Card title="Context">
              <KeyValues values={s.context} empty="No context: agents set it with update-session-context." />
            </Card>
            <Card title="Stored results">
              <StoredResults values={s.intermediateResults} />
            </Card>
          </div>
          <QueryHistory s={s} />
        </>
      )}
    </>
  );
}

function Facts({ s }: { s: Session }) {
  const facts: [string, preact.ComponentChildren][] = [
    ['Status', <Badge tone={STATE_TONE[s.state]}>{s.state.toLowerCase()}</Badge>],
    ['Type', s.sessionType.toLowerCase()],
    ['Created', formatTime(s.createdAt)],
    [
      'Expires',
      `${formatTime(s.expiresAt)} (${hoursText(s.timeRemainingHours)}${s.timeRemainingHours > 0 ? ' left' : ''})`,
    ],
    ['Time-to-live', hoursText(s.ttlHours)],
    ['Last used', formatTime(s.lastAccessedAt)],
    ['Queries', formatNumber(s.totalQueries)],
    ['Cache hits', s.cacheHitRate === null ? '—' : `${formatNumber(s.cacheHitRate * 100)} %`],
    ['User id', s.userId ?? '—'],
    ...(s.owner ? ([['Owner', s.owner]] as [string, string][]) : []),
    ...(s.archivedAt ? ([['Archived', formatTime(s.archivedAt)]] as [string, string][]) : []),
  ];
  return (
    <>
      <dl class="ses-facts">
        {facts.map(([label, value]) => (
          <div key={label}>
            <dt>{label}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      <h3>Assets</h3>
      <ul class="ses-chips">
        {s.assets.map((a) => (
          <li key={a}>
            <a href={href('markets', a)}>{a}</a>
          </li>
        ))}
      </ul>
      {s.tags.length ? (
        <p>
          Tags:{' '}
          {s.tags.map((t) => (
            <Badge key={t} tone="info">
              {t}
            </Badge>
          ))}
        </p>
      ) : null}
    </>
  );
}

function show(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
}

function KeyValues({ values, empty }: { values: Record<string, unknown>; empty: string }) {
  const entries = Object.entries(values);
  if (!entries.length) return <Empty>{empty}</Empty>;
  return (
    <TableWrap label="Context keys">
      <table>
        <thead>
          <tr>
            <th>Key</th>
            <th>Value</th>
          </tr>
        </thead>
        <tbody>
          {entries.map(([key, value]) => (
            <tr key={key}>
              <td class="mono">{key}</td>
              <td>{typeof value === 'object' && value !== null ? <pre>{show(value)}</pre> : show(value)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}

function StoredResults({ values }: { values: Record<string, unknown> }) {
  const entries = Object.entries(values);
  if (!entries.length) return <Empty>No stored results: agents keep them with store-session-result.</Empty>;
  return (
    <ul class="ses-results">
      {entries.map(([name, value]) => (
        <li key={name}>
          <details>
            <summary class="mono">{name}</summary>
            <pre>{show(value)}</pre>
          </details>
        </li>
      ))}
    </ul>
  );
}
