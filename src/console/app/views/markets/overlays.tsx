/**
 * The SMA 20 / EMA 20 / Bollinger 20 overlays, computed by Vigil (an FK-DSL EVALUATE), never in the
 * browser. FK-DSL answers each indicator's latest value from daily closes, not a series, so the
 * chart draws each as a level across it and the hint says so.
 */
import { useEffect, useState } from 'preact/hooks';
import { type ApiError, fetchQuery } from '../../api.ts';
import { ErrorNote, formatPrice, formatTime } from '../../ui.tsx';
import type { Level } from './price-chart.ts';
import { asApiError, FKDSL_QUERY, type FkDslExecution, type FkDslMetric } from './queries.ts';

type Overlay = 'sma' | 'ema' | 'bollinger';

const OVERLAYS: readonly { id: Overlay; label: string }[] = [
  { id: 'sma', label: 'SMA 20' },
  { id: 'ema', label: 'EMA 20' },
  { id: 'bollinger', label: 'Bollinger 20' },
];

/** What Vigil said: each overlay's levels, and the daily bar they were computed to. */
interface Indicators {
  readonly levels: Record<Overlay, Level[]>;
  readonly asOf: string | null;
  readonly problems: string[];
}

function read(metrics: readonly FkDslMetric[]): Indicators {
  const [sma, ema, bands] = metrics;
  const problems = metrics.filter((m) => m.error).map((m) => `${m.metric}: ${m.error}`);
  const band = (name: string) => bands?.components?.find((c) => c.name === name)?.value ?? null;
  const level = (title: string, price: number | null | undefined, colour: string): Level[] =>
    price === null || price === undefined ? [] : [{ title, price, colour }];
  return {
    levels: {
      sma: level('SMA 20', sma?.value, '--accent'),
      ema: level('EMA 20', ema?.value, '--link'),
      bollinger: [
        ...level('BB upper', band('upper'), '--medium'),
        ...level('BB middle', band('middle'), '--medium'),
        ...level('BB lower', band('lower'), '--medium'),
      ],
    },
    asOf: metrics.find((m) => m.asOf)?.asOf ?? null,
    problems,
  };
}

async function evaluate(symbol: string): Promise<Indicators> {
  const query = `EVALUATE "${symbol.replace(/"/g, '')}": SMA(20), EMA(20), BOLLINGER_BANDS(20, 2)`;
  const data = await fetchQuery<{ executeFkDsl: FkDslExecution }>(FKDSL_QUERY, { query });
  const statement = data.executeFkDsl.statements[0];
  if (statement?.error) throw { message: statement.error.message, fields: {} } satisfies ApiError;
  return read(statement?.result?.asset?.metrics ?? []);
}

export function Overlays({ symbol, onLevels }: { symbol: string; onLevels: (levels: Level[]) => void }) {
  const [on, setOn] = useState<Record<Overlay, boolean>>({ sma: false, ema: false, bollinger: false });
  const [result, setResult] = useState<Indicators | undefined>(undefined);
  const [error, setError] = useState<ApiError | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const wanted = OVERLAYS.some((o) => on[o.id]);

  // Asked once per symbol, when the first overlay is switched on.
  useEffect(() => {
    setResult(undefined);
    setError(undefined);
  }, [symbol]);
  useEffect(() => {
    if (!wanted || result || error) return undefined;
    let live = true;
    setBusy(true);
    evaluate(symbol)
      .then((r) => live && setResult(r))
      .catch((e) => live && setError(asApiError(e)))
      .finally(() => live && setBusy(false));
    return () => {
      live = false;
    };
  }, [wanted, symbol, result, error]);

  useEffect(() => {
    onLevels(result ? OVERLAYS.flatMap((o) => (on[o.id] ? result.levels[o.id] : [])) : []);
  }, [result, on]);

  const shown = result ? OVERLAYS.flatMap((o) => (on[o.id] ? result.levels[o.id] : [])) : [];
  return (
    <div class="mk-overlays">
      <fieldset class="mk-overlay-set">
        <legend>Overlays (computed by Vigil)</legend>
        {OVERLAYS.map((o) => (
          <label class="inline" key={o.id}>
            <input
              type="checkbox"
              checked={on[o.id]}
              onChange={(e) => setOn({ ...on, [o.id]: (e.currentTarget as HTMLInputElement).checked })}
            />
            {o.label}
          </label>
        ))}
      </fieldset>
      {busy ? (
        <p class="hint" role="status">
          Asking Vigil for the indicators…
        </p>
      ) : null}
      {error ? <ErrorNote error={error} action={() => setError(undefined)} /> : null}
      {shown.length > 0 ? (
        <ul class="mk-levels">
          {shown.map((l) => (
            <li key={l.title}>
              <span class={`mk-swatch mk-swatch-${l.colour.slice(2)}`} aria-hidden="true" />
              {l.title}: <span class="num">{formatPrice(l.price)}</span>
            </li>
          ))}
        </ul>
      ) : null}
      {result?.problems.map((p) => (
        <p class="hint" key={p}>
          {p}
        </p>
      ))}
      <p class="hint">
        Vigil computes these with FK-DSL from daily closes (Bollinger: 20 closes, 2 standard deviations) and
        gives the latest value only, not a series, so each is drawn as a dashed level across the chart
        {result?.asOf ? `; computed to the daily bar of ${formatTime(result.asOf)}` : ''}.
      </p>
    </div>
  );
}
