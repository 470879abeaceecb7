/** Card "Queries": the session's recorded data-tool calls, newest first, with counts per tool. */
import { href } from '../../router.ts';
import { Card, Empty, formatNumber, formatTime } from '../../ui.tsx';
import { TableWrap } from '../fk-dsl/table-wrap.tsx';
import type { QueryRecord, Session } from './queries.ts';

/** What a call asked, in one line: the FK-DSL query, or its symbol. */
function asked(q: QueryRecord): string {
  const p = q.parameters;
  for (const key of ['query', 'symbol', 'coin', 'coinId'])
    if (typeof p[key] === 'string') return p[key] as string;
  return JSON.stringify(p);
}

export function QueryHistory({ s }: { s: Session }) {
  const counts = Object.entries(s.queryTypeCounts);
  const dropped = s.totalQueries - s.recentQueries.length;
  return (
    <Card title="Queries">
      {counts.length ? (
        <p class="muted">
          {counts.map(([tool, n]) => `${tool}: ${formatNumber(n)}`).join(' · ')}
          {dropped > 0 ? ` · ${dropped} older records not shown (only the newest are kept)` : ''}
        </p>
      ) : null}
      {s.state === 'ACTIVE' ? (
        <p>
          <a href={href('fk-dsl', s.id)}>Run an FK-DSL query in this session</a>
        </p>
      ) : null}
      {!s.recentQueries.length ? (
        <Empty>
          No queries recorded yet: data tools and FK-DSL runs given this session id are recorded here.
        </Empty>
      ) : (
        <TableWrap label="Recorded queries">
          <table>
            <thead>
              <tr>
                <th class="num">#</th>
                <th>When</th>
                <th>Tool</th>
                <th>Asked</th>
                <th>Answer</th>
                <th class="hide-narrow">Symbols</th>
                <th class="num">Latency</th>
                <th class="hide-narrow">Cache</th>
              </tr>
            </thead>
            <tbody>
              {s.recentQueries.map((q) => (
                <tr key={q.seq}>
                  <td class="num">{q.seq}</td>
                  <td>{formatTime(q.at)}</td>
                  <td>{q.queryType}</td>
                  <td>
                    <code class="ses-asked">{asked(q)}</code>
                  </td>
                  <td>{q.resultSummary}</td>
                  <td class="hide-narrow">{q.symbols.join(', ') || '—'}</td>
                  <td class="num">{formatNumber(q.latencyMs)} ms</td>
                  <td class="hide-narrow">{q.cacheHit === null ? '—' : q.cacheHit ? 'hit' : 'miss'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
    </Card>
  );
}
