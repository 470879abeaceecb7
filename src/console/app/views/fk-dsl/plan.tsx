/** An evaluation plan in words: what each statement fetches per instrument and what it computes. */

import { formatNumber } from '../../ui.tsx';
import type { Plan } from './queries.ts';
import { TableWrap } from './table-wrap.tsx';

/** Bars read: an hourly bar costs 25 daily ones (it is built from minutes), as the server's estimate counts. */
function weight(plan: Plan): { instruments: number; daily: number; hourly: number; bars: number } {
  const daily = plan.fetches.reduce((sum, f) => sum + f.dailyBars, 0);
  const hourly = plan.fetches.reduce((sum, f) => sum + f.hourlyBars, 0);
  return { instruments: plan.fetches.length, daily, hourly, bars: daily + 25 * hourly };
}

export function PlanView({ plan, index }: { plan: Plan; index?: number }) {
  const w = weight(plan);
  return (
    <article class="fk-plan">
      <h3>
        {index === undefined ? '' : `${index + 1}. `}
        {plan.kind.toLowerCase()} <code>{plan.statement}</code>
      </h3>
      <dl class="fk-facts">
        <div>
          <dt>Instruments</dt>
          <dd>{formatNumber(w.instruments)}</dd>
        </div>
        <div>
          <dt>Daily bars</dt>
          <dd>{formatNumber(w.daily)}</dd>
        </div>
        <div>
          <dt>Hourly bars</dt>
          <dd>{formatNumber(w.hourly)}</dd>
        </div>
        <div>
          <dt title="daily bars + 25 × hourly bars">Data weight (daily-bar equivalents)</dt>
          <dd>{formatNumber(w.bars)}</dd>
        </div>
      </dl>
      {plan.computations.length ? (
        <>
          <h4>Computations</h4>
          <ul class="fk-list">
            {plan.computations.map((c) => (
              <li key={c}>{c}</li>
            ))}
          </ul>
        </>
      ) : null}
      <FetchTable plan={plan} />
    </article>
  );
}

function yesNo(value: boolean): string {
  return value ? 'yes' : 'no';
}

function FetchTable({ plan }: { plan: Plan }) {
  if (!plan.fetches.length) return <p class="muted">Nothing to fetch.</p>;
  return (
    <details class="fk-fetches" open={plan.fetches.length <= 8}>
      <summary>Fetches ({plan.fetches.length} instruments)</summary>
      <TableWrap label="Fetches">
        <table>
          <thead>
            <tr>
              <th>Symbol</th>
              <th>Class</th>
              <th>Quote</th>
              <th>Profile</th>
              <th class="num">Daily bars</th>
              <th class="num">Hourly bars</th>
            </tr>
          </thead>
          <tbody>
            {plan.fetches.map((f) => (
              <tr key={f.symbol}>
                <td>{f.symbol}</td>
                <td>{f.assetClass.toLowerCase()}</td>
                <td>{yesNo(f.quote)}</td>
                <td>{yesNo(f.profile)}</td>
                <td class="num">{formatNumber(f.dailyBars)}</td>
                <td class="num">{formatNumber(f.hourlyBars)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
    </details>
  );
}
