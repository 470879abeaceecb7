/** The symbol page's quote: the price (live), change, market state, and where it came from. */

import type { ApiError } from '../../api.ts';
import { useStore } from '../../api.ts';
import type { Store } from '../../store.ts';
import { Badge, ErrorNote, formatPrice, formatTime, Loading } from '../../ui.tsx';
import { Change, StateBadge } from './bits.tsx';
import type { PriceTick, SourcedQuote } from './queries.ts';

export function QuoteHead({
  quote,
  error,
  ticks,
}: {
  quote: SourcedQuote | undefined;
  error: ApiError | undefined;
  ticks: Store<PriceTick | null>;
}) {
  const tick = useStore(ticks);
  if (error && !tick) return <ErrorNote error={error} />;
  if (!quote && !tick) return <Loading what="the quote" />;
  const q = quote?.quote;
  const price = tick?.price ?? q?.price;
  const simulated = tick ? !tick.live : quote?.lineage.simulated;
  const provider = tick?.provider ?? quote?.lineage.used.join(', ');
  return (
    <div class="mk-quote">
      <p class="mk-price">
        <span class="num">{formatPrice(price)}</span>{' '}
        <span class="muted">{tick?.currency ?? q?.currency}</span>
      </p>
      <Change percent={tick?.changePercent ?? q?.changePercent} amount={tick?.change ?? q?.change} />
      <StateBadge state={tick?.marketState ?? q?.marketState} />
      <span class="muted">
        from {provider || '—'} · as of {formatTime(tick?.asOf ?? q?.asOf)}
      </span>
      {simulated ? <Badge tone="medium">simulated</Badge> : null}
    </div>
  );
}
