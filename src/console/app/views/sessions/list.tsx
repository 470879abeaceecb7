/** Card "Sessions": the caller's sessions, newest first, a page at a time (cursor), archived ones on request. */
import { useState } from 'preact/hooks';
import { useQuery } from '../../api.ts';
import { href } from '../../router.ts';
import { Badge, Card, Empty, ErrorNote, formatTime, Loading } from '../../ui.tsx';
import { TableWrap } from '../fk-dsl/table-wrap.tsx';
import { hoursText, LIST, type SessionSummary, STATE_TONE } from './queries.ts';

const PAGE = 20;

type Page = { totalSessions: number; nextCursor: string | null; sessions: SessionSummary[] };

export function SessionList() {
  const [archived, setArchived] = useState(false);
  // Cursors of the pages seen before this one, so "Previous page" can go back.
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const cursor = cursors[cursors.length - 1];
  const { data, error, loading, refetch } = useQuery<{ analysisSessions: Page }>(
    LIST,
    { cursor, includeArchived: archived, limit: PAGE },
    [cursor, archived],
  );
  const page = data?.analysisSessions;
  const toggle = (
    <label class="inline">
      <input
        type="checkbox"
        checked={archived}
        onChange={(e) => {
          setArchived(e.currentTarget.checked);
          setCursors([undefined]);
        }}
      />
      Include archived
    </label>
  );
  return (
    <Card title="Sessions" actions={toggle}>
      {error ? <ErrorNote error={error} action={refetch} /> : null}
      {!page ? (
        loading ? (
          <Loading what="the sessions" />
        ) : null
      ) : page.sessions.length === 0 ? (
        <Empty>
          {archived || cursors.length > 1
            ? 'No analysis sessions here.'
            : 'No analysis sessions yet: agents create them with the create-analysis-session tool or the createAnalysisSession mutation.'}
        </Empty>
      ) : (
        <>
          <SessionTable sessions={page.sessions} />
          <nav class="row ses-paging" aria-label="Session pages">
            <span class="muted">
              Page {cursors.length} · {page.totalSessions} session{page.totalSessions === 1 ? '' : 's'} in all
            </span>
            <button
              type="button"
              disabled={cursors.length < 2}
              onClick={() => setCursors(cursors.slice(0, -1))}
            >
              Previous page
            </button>
            <button
              type="button"
              disabled={!page.nextCursor}
              onClick={() => page.nextCursor && setCursors([...cursors, page.nextCursor])}
            >
              Next page
            </button>
          </nav>
        </>
      )}
    </Card>
  );
}

function SessionTable({ sessions }: { sessions: readonly SessionSummary[] }) {
  return (
    <TableWrap label="Analysis sessions">
      <table class="ses-table">
        <thead>
          <tr>
            <th>Session</th>
            <th class="hide-narrow">Type</th>
            <th>Assets</th>
            <th class="hide-narrow">Tags</th>
            <th class="hide-narrow">Created</th>
            <th>Expires</th>
            <th>Status</th>
            <th class="num">Queries</th>
          </tr>
        </thead>
        <tbody>
          {sessions.map((s) => (
            <tr key={s.id}>
              <td>
                <a href={href('sessions', s.id)} class="mono" aria-label={`Session ${s.id}`}>
                  {s.id.slice(0, 8)}
                </a>
                {s.userId ? <span class="muted"> · {s.userId}</span> : null}
              </td>
              <td class="hide-narrow">{s.sessionType.toLowerCase()}</td>
              <td>{s.assets.join(', ')}</td>
              <td class="hide-narrow">{s.tags.length ? s.tags.join(', ') : '—'}</td>
              <td class="hide-narrow">{formatTime(s.createdAt)}</td>
              <td>
                {s.state === 'ACTIVE' ? `${hoursText(s.timeRemainingHours)} left` : formatTime(s.expiresAt)}
                <div class="muted">TTL {hoursText(s.ttlHours)}</div>
                {s.state === 'ACTIVE' ? <div class="muted hide-narrow">{formatTime(s.expiresAt)}</div> : null}
              </td>
              <td>
                <Badge tone={STATE_TONE[s.state]}>{s.state.toLowerCase()}</Badge>
              </td>
              <td class="num">{s.totalQueries}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}
