/** Card "Analytics": sessionAnalytics as counts, rates and small bar charts (by type, per tool). */
import { useState } from 'preact/hooks';
import { useQuery } from '../../api.ts';
import { Card, ErrorNote, formatNumber, Loading } from '../../ui.tsx';
import { ANALYTICS, type Analytics, type Count } from './queries.ts';

const PERIODS = [7, 30, 90, 365];

function percent(value: number | null): string {
  return value === null ? '—' : `${formatNumber(value * 100)} %`;
}

function duration(seconds: number): string {
  if (seconds < 60) return `${formatNumber(seconds)} s`;
  if (seconds < 3600) return `${formatNumber(seconds / 60)} min`;
  return `${formatNumber(seconds / 3600)} h`;
}

export function AnalyticsCard() {
  const [days, setDays] = useState(30);
  const { data, error, loading, refetch } = useQuery<{ sessionAnalytics: Analytics }>(ANALYTICS, { days }, [
    days,
  ]);
  const a = data?.sessionAnalytics;
  const period = (
    <label class="inline">
      Period
      <select value={days} onChange={(e) => setDays(Number(e.currentTarget.value))}>
        {PERIODS.map((d) => (
          <option key={d} value={d}>
            last {d} days
          </option>
        ))}
      </select>
    </label>
  );
  return (
    <Card title="Analytics" actions={period}>
      {error ? (
        <ErrorNote
          error={
            error.code === 'SESSION_ANALYTICS_DISABLED'
              ? 'Session analytics are turned off on this server.'
              : error
          }
          action={refetch}
        />
      ) : !a ? (
        loading ? (
          <Loading what="the analytics" />
        ) : null
      ) : (
        <AnalyticsBody a={a} />
      )}
    </Card>
  );
}

function AnalyticsBody({ a }: { a: Analytics }) {
  const tiles: [string, string][] = [
    ['Sessions', formatNumber(a.totalSessions)],
    ['Active', formatNumber(a.activeSessions)],
    ['Expired', formatNumber(a.expiredSessions)],
    ['Archived', formatNumber(a.archivedSessions)],
    ['Queries', formatNumber(a.totalQueries)],
    ['Queries per session', formatNumber(a.avgQueriesPerSession)],
    ['Average duration', duration(a.avgDurationSeconds)],
    ['Abandoned', percent(a.abandonmentRate)],
    ['Cache hits', percent(a.cacheHitRate)],
  ];
  return (
    <>
      <dl class="ses-stats">
        {tiles.map(([label, value]) => (
          <div key={label} class="tile">
            <dt>{label}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      <div class="ses-bars-grid">
        <Bars title="Sessions by type" counts={a.sessionTypeBreakdown} />
        <Bars title="Queries per tool" counts={a.queryTypeDistribution} />
        <Bars title="Top assets" counts={a.topAssets} />
        <Bars title="Popular tags" counts={a.popularTags} />
      </div>
    </>
  );
}

/** A horizontal bar chart in HTML: each bar's length is its share of the largest count. */
function Bars({ title, counts }: { title: string; counts: readonly Count[] }) {
  const max = Math.max(1, ...counts.map((c) => c.count));
  return (
    <figure class="ses-bars">
      <figcaption>{title}</figcaption>
      {counts.length ? (
        <ul>
          {counts.map((c) => (
            <li key={c.name}>
              <span class="ses-bar-name">{c.name}</span>
              <span class="ses-bar-track" aria-hidden="true">
                <span class="ses-bar" style={{ width: `${(c.count / max) * 100}%` }} />
              </span>
              <span class="ses-bar-count">{formatNumber(c.count)}</span>
            </li>
          ))}
        </ul>
      ) : (
        <p class="muted">None in this period.</p>
      )}
    </figure>
  );
}
