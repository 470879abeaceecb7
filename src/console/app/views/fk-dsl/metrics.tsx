/** The metric catalog (fkDslMetrics) as a collapsible reference under the editor. */

import { useQuery } from '../../api.ts';
import { ErrorNote, Loading } from '../../ui.tsx';
import { METRICS, type MetricInfo } from './queries.ts';
import { TableWrap } from './table-wrap.tsx';

export function MetricReference() {
  const { data, error, loading, refetch } = useQuery<{ fkDslMetrics: MetricInfo[] }>(METRICS);
  return (
    <details class="fk-reference">
      <summary>Metric reference{data ? ` (${data.fkDslMetrics.length})` : ''}</summary>
      {error ? (
        <ErrorNote error={error} action={refetch} />
      ) : loading && !data ? (
        <Loading what="the metrics" />
      ) : (
        <TableWrap label="Metric reference">
          <table>
            <thead>
              <tr>
                <th>Signature</th>
                <th>Unit</th>
                <th>What it computes</th>
              </tr>
            </thead>
            <tbody>
              {data?.fkDslMetrics.map((m) => (
                <tr key={m.id}>
                  <td>
                    <code>{m.signature}</code>
                    {m.technical ? <span class="muted"> · in TECHNICAL</span> : null}
                  </td>
                  <td>{m.unit.toLowerCase()}</td>
                  <td>{m.description}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
    </details>
  );
}
