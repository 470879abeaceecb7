/** Each statement's result as a table, typed by its kind; a price chart where the result has a time axis. */

import { Badge, formatNumber, formatTime } from '../../ui.tsx';
import { PriceChart } from './chart.tsx';
import { componentsText, flatten, formatValue, unitLabel } from './format.ts';
import { PlanView } from './plan.tsx';
import type { Asset, Execution, Result, Statement } from './queries.ts';
import { MacroTable, ScanTable } from './results-more.tsx';
import { TableWrap } from './table-wrap.tsx';

export function ExecutionView({ execution }: { execution: Execution }) {
  const n = execution.statements.length;
  return (
    <div class="fk-execution">
      <p class="muted" role="status">
        {n} statement{n === 1 ? '' : 's'} in {formatNumber(execution.elapsedMs)} ms
        {execution.errors ? `, ${execution.errors} failed` : ''}.
      </p>
      {execution.statements.map((s) => (
        <StatementView key={s.index} statement={s} />
      ))}
    </div>
  );
}

function StatementView({ statement }: { statement: Statement }) {
  return (
    <article class="fk-statement">
      <h3>
        {statement.index + 1}.{' '}
        <Badge tone={statement.error ? 'error' : 'ok'}>{statement.kind.toLowerCase()}</Badge>{' '}
        <code>{statement.statement}</code>
      </h3>
      {statement.error ? (
        <p class="error-note" role="alert">
          {statement.error.message} ({statement.error.code})
        </p>
      ) : statement.result ? (
        <ResultView result={statement.result} />
      ) : (
        <p class="muted">No result.</p>
      )}
    </article>
  );
}

function ResultView({ result }: { result: Result }) {
  switch (result.__typename) {
    case 'FkDslEvaluateResult':
      return <EvaluateTable asset={result.asset} />;
    case 'FkDslCompareResult':
      return <CompareTable result={result} />;
    case 'FkDslCorrelateResult':
      return <CorrelateTable result={result} />;
    case 'FkDslScanResult':
      return <ScanTable result={result} />;
    case 'FkDslMacroResult':
      return <MacroTable result={result} />;
    case 'FkDslExplainResult':
      return <PlanView plan={result.plan} />;
  }
}

/** The longest daily window a result's metrics used: the chart shows that much history. */
function chartBars(asset: Asset): number {
  const bars = asset.metrics.map((m) => (m.window?.interval === 'DAY' ? m.window.bars : 0));
  return Math.min(Math.max(60, ...bars), 500);
}

function EvaluateTable({ asset }: { asset: Asset }) {
  const rows = asset.metrics.flatMap((m) =>
    m.components?.length
      ? flatten(m.components, m.metric.replace(/\(.*$/, '')).map((c) => ({
          ...m,
          metric: c.name,
          unit: c.unit,
          value: c.value,
        }))
      : [m],
  );
  const simulated = asset.lineage.some((l) => l.simulated);
  return (
    <>
      <p class="muted">
        {asset.symbol} ({asset.assetClass.toLowerCase()}), data as of {formatTime(asset.asOf)}
        {simulated ? ' · simulated market' : ''}
      </p>
      <TableWrap label={`Metrics of ${asset.symbol}`}>
        <table>
          <thead>
            <tr>
              <th>Metric</th>
              <th class="num">Value</th>
              <th class="hide-narrow">Unit</th>
              <th>Window</th>
              <th class="num hide-narrow">Bars used</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((m) => (
              <tr key={m.metric}>
                <td>{m.metric}</td>
                <td class="num">
                  {m.error ? <span class="down">{m.error}</span> : formatValue(m.value, m.unit)}
                </td>
                <td class="hide-narrow">{unitLabel(m.unit)}</td>
                <td>{m.window?.text ?? '—'}</td>
                <td class="num hide-narrow">{m.barsUsed ?? '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
      <PriceChart symbols={[asset.symbol]} bars={chartBars(asset)} />
    </>
  );
}

function CompareTable({ result }: { result: Extract<Result, { __typename: 'FkDslCompareResult' }> }) {
  const { symbols, rows } = result.table;
  return (
    <>
      <TableWrap label="Compared metrics">
        <table>
          <thead>
            <tr>
              <th>Metric</th>
              {symbols.map((s) => (
                <th key={s} class="num">
                  {s}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.metric}>
                <td>
                  {row.metric} <span class="muted">{unitLabel(row.unit)}</span>
                </td>
                {row.cells.map((c) => (
                  <td key={c.symbol} class="num">
                    {c.components?.length ? componentsText(c.components) : formatValue(c.value, row.unit)}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
      <PriceChart symbols={symbols} bars={120} />
    </>
  );
}

function windowBars(window: string): number {
  const match = /^(\d+)([dwmy]?)$/i.exec(window.trim());
  if (!match) return 90;
  const n = Number(match[1]);
  const per = { '': 1, d: 1, w: 5, m: 21, y: 252 }[match[2]!.toLowerCase()] ?? 1;
  return Math.min(Math.max(30, n * per), 500);
}

function CorrelateTable({ result }: { result: Extract<Result, { __typename: 'FkDslCorrelateResult' }> }) {
  const symbols = [...new Set(result.pairs.flatMap((p) => [p.a, p.b]))];
  return (
    <>
      <p class="muted">Pearson correlation of log returns over {result.window}.</p>
      <TableWrap label="Correlations">
        <table>
          <thead>
            <tr>
              <th>Asset</th>
              <th>With</th>
              <th class="num">Correlation</th>
              <th class="num">Observations</th>
              <th class="hide-narrow">From</th>
              <th class="hide-narrow">To</th>
            </tr>
          </thead>
          <tbody>
            {result.pairs.map((p) => (
              <tr key={`${p.a}|${p.b}`}>
                <td>{p.a}</td>
                <td>{p.b}</td>
                <td class="num">{formatValue(p.correlation, 'NUMBER')}</td>
                <td class="num">{p.observations}</td>
                <td class="hide-narrow">{formatTime(p.from)}</td>
                <td class="hide-narrow">{formatTime(p.to)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
      <PriceChart symbols={symbols} bars={windowBars(result.window)} />
    </>
  );
}
