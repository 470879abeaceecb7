/** Pieces the watch list and the symbol page share: a change with its sign, a market state. */
import { Badge, formatNumber, formatPercent } from '../../ui.tsx';
import type { MarketState } from './queries.ts';

/** A change in percent: colour, arrow and sign, so it reads without colour too. */
export function Change({ percent, amount }: { percent: number | null | undefined; amount?: number | null }) {
  if (percent === null || percent === undefined) return <span class="muted">—</span>;
  const tone = percent > 0 ? 'up' : percent < 0 ? 'down' : 'muted';
  const arrow = percent > 0 ? '▲' : percent < 0 ? '▼' : '■';
  return (
    <span class={`mk-change ${tone}`}>
      <span aria-hidden="true">{arrow} </span>
      {formatPercent(percent)}
      {amount === undefined || amount === null ? null : (
        <span class="mk-amount">
          {' '}
          ({amount > 0 ? '+' : ''}
          {formatNumber(amount)})
        </span>
      )}
    </span>
  );
}

const STATES: Record<MarketState, { label: string; tone: string }> = {
  REGULAR: { label: 'Open', tone: 'ok' },
  CONTINUOUS: { label: '24/7', tone: 'info' },
  PRE: { label: 'Pre-market', tone: 'medium' },
  POST: { label: 'After hours', tone: 'medium' },
  CLOSED: { label: 'Closed', tone: 'low' },
};

export function StateBadge({ state }: { state: MarketState | null | undefined }) {
  if (!state) return <span class="muted">—</span>;
  const { label, tone } = STATES[state];
  return (
    <span title={`Market state: ${state.toLowerCase()}`}>
      <Badge tone={tone}>{label}</Badge>
    </span>
  );
}
