/**
 * The SMA 20 / EMA 20 / Bollinger 20 switches. The series themselves come with the bars (Vigil's
 * `studies`, never computed in the browser): switching one on only shows its lines.
 */
import { OVERLAYS, type Overlay } from './overlay-lines.ts';

export function Overlays({
  on,
  onChange,
}: {
  on: Readonly<Record<Overlay, boolean>>;
  onChange: (on: Record<Overlay, boolean>) => void;
}) {
  return (
    <div class="mk-overlays">
      <fieldset class="mk-overlay-set">
        <legend>Overlays (computed by Vigil)</legend>
        {OVERLAYS.map((o) => (
          <label class="inline" key={o.id}>
            <input
              type="checkbox"
              checked={on[o.id]}
              onChange={(e) => onChange({ ...on, [o.id]: (e.currentTarget as HTMLInputElement).checked })}
            />
            <span class={`mk-swatch mk-swatch-${o.colour.slice(2)}`} aria-hidden="true" />
            {o.label}
          </label>
        ))}
      </fieldset>
      <p class="hint">
        SMA, EMA and Bollinger bands (20 closes, 2 standard deviations) are computed by Vigil from the same
        bars.
      </p>
    </div>
  );
}
