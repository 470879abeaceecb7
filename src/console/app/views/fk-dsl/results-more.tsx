/** SCAN and MACRO results as tables. */

import { formatNumber, formatTime } from '../../ui.tsx';
import { formatP, formatStat, formatValue } from './format.ts';
import type { Result } from './queries.ts';
import { TableWrap } from './table-wrap.tsx';

type Scan = Extract<Result, { __typename: 'FkDslScanResult' }>;
type Macro = Extract<Result, { __typename: 'FkDslMacroResult' }>;

export function ScanTable({ result }: { result: Scan }) {
  const metrics = [...new Set(result.matches.flatMap((m) => m.values.map((v) => v.metric)))];
  return (
    <>
      <p class="muted">
        Universe {result.universe.toLowerCase()}: {result.scanned} scanned, {result.matches.length} matched,{' '}
        {result.skipped.length} skipped.
      </p>
      {result.matches.length ? (
        <TableWrap label="Scan matches">
          <table>
            <thead>
              <tr>
                <th>Symbol</th>
                {metrics.map((m) => (
                  <th key={m} class="num">
                    {m}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {result.matches.map((match) => (
                <tr key={match.symbol}>
                  <td>{match.symbol}</td>
                  {metrics.map((name) => {
                    const v = match.values.find((x) => x.metric === name);
                    return (
                      <td key={name} class="num">
                        {v ? formatValue(v.value, v.unit) : '—'}
                      </td>
                    );
                  })}
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      ) : (
        <p class="state empty">No instrument met every condition.</p>
      )}
      {result.skipped.length ? (
        <details>
          <summary>Skipped ({result.skipped.length})</summary>
          <ul class="fk-list">
            {result.skipped.map((s) => (
              <li key={s.symbol}>
                {s.symbol}: {s.reason}
              </li>
            ))}
          </ul>
        </details>
      ) : null}
    </>
  );
}

export function MacroTable({ result }: { result: Macro }) {
  return (
    <>
      <p class="muted">
        {result.analysis.toLowerCase()} of {result.target} on {result.indicators.join(', ')} over{' '}
        {result.window}: {result.observations} {result.frequency} observations, {formatTime(result.from)} to{' '}
        {formatTime(result.to)}.
      </p>
      {result.regression ? <Regression regression={result.regression} /> : null}
      {result.correlations ? (
        <Table
          label="Correlations with indicators"
          head={['Indicator', 'Correlation', 'p-value']}
          rows={result.correlations.map((c) => [c.indicator, formatStat(c.correlation), formatP(c.pValue)])}
        />
      ) : null}
      {result.impacts ? (
        <Table
          label="Impacts"
          head={['Indicator', 'Impact', 'Std. error', 'p-value']}
          rows={result.impacts.map((i) => [
            i.indicator,
            formatValue(i.impactPercent, 'PERCENT'),
            formatValue(i.impactStandardErrorPercent, 'PERCENT'),
            formatP(i.pValue),
          ])}
        />
      ) : null}
      {result.causality ? (
        <Table
          label="Granger causality"
          head={['Cause', 'Effect', 'Lags', 'F', 'p-value', 'Conclusion']}
          rows={result.causality.flatMap((c) =>
            [c.forward, c.reverse].map((t) => [
              t.cause,
              t.effect,
              String(t.lags),
              formatStat(t.fStatistic),
              formatP(t.pValue),
              t.conclusion === 'CAUSES' ? 'helps predict' : 'no evidence',
            ]),
          )}
        />
      ) : null}
      <p class="hint">{result.conventions}</p>
    </>
  );
}

function Regression({ regression: r }: { regression: NonNullable<Macro['regression']> }) {
  return (
    <>
      <p>
        R² {formatStat(r.rSquared)}, adjusted {formatStat(r.adjustedRSquared)}; F {formatStat(r.fStatistic)}{' '}
        (p {formatP(r.fPValue)}); n {formatNumber(r.n)}, k {r.k}.
      </p>
      <Table
        label="Regression coefficients"
        head={['Coefficient', 'Estimate', 'Std. error', 't', 'p-value']}
        rows={r.coefficients.map((c) => [
          c.name,
          formatStat(c.estimate),
          formatStat(c.standardError),
          formatStat(c.tStatistic),
          formatP(c.pValue),
        ])}
      />
    </>
  );
}

/** A plain table: the first column is text, the others are numbers aligned right. */
function Table({ head, rows, label }: { head: string[]; rows: string[][]; label: string }) {
  return (
    <TableWrap label={label}>
      <table>
        <thead>
          <tr>
            {head.map((h, i) => (
              <th key={h} class={i ? 'num' : undefined}>
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.join('|')}>
              {row.map((cell, i) => (
                <td key={`${i}`} class={i ? 'num' : undefined}>
                  {cell}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}
