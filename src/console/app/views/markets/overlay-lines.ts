/**
 * The overlay lines (SMA 20, EMA 20, Bollinger 20) from the studies Vigil sends with each page of bars:
 * pure functions, no DOM. Each study's values are aligned with the page's bars, so pages are joined
 * by concatenation and each value takes the time of its bar.
 */
import type { Candle } from './live-bars.ts';
import type { Study } from './queries.ts';

export type Overlay = 'sma' | 'ema' | 'bollinger';

export const OVERLAYS: readonly { id: Overlay; label: string; colour: string }[] = [
  { id: 'sma', label: 'SMA 20', colour: '--accent' },
  { id: 'ema', label: 'EMA 20', colour: '--link' },
  { id: 'bollinger', label: 'Bollinger 20', colour: '--medium' },
];

/** One line to draw: its points skip the warm-up (null values). */
export interface OverlayLine {
  readonly id: string;
  readonly overlay: Overlay;
  readonly title: string;
  /** A CSS variable naming its colour, so it follows the theme. */
  readonly colour: string;
  readonly dashed: boolean;
  readonly points: readonly { readonly time: number; readonly value: number }[];
}

type Values = readonly (number | null)[];

/** The values of each line across pages, in the order of the bars. */
export type LineValues = Record<'sma' | 'ema' | 'upper' | 'middle' | 'lower', (number | null)[]>;

export const emptyLineValues = (): LineValues => ({ sma: [], ema: [], upper: [], middle: [], lower: [] });

/** Appends one page's studies (one value per bar of the page, `bars` bars) to `into`. */
export function appendStudies(into: LineValues, studies: readonly Study[], bars: number): void {
  const pad = (values: Values | null | undefined) => values ?? new Array<null>(bars).fill(null);
  const find = (kind: Study['kind']) => studies.find((s) => s.kind === kind);
  const bands = find('BOLLINGER_BANDS');
  into.sma.push(...pad(find('SMA')?.values));
  into.ema.push(...pad(find('EMA')?.values));
  into.upper.push(...pad(bands?.upper));
  into.middle.push(...pad(bands?.values));
  into.lower.push(...pad(bands?.lower));
}

function points(candles: readonly Candle[], values: Values) {
  const out: { time: number; value: number }[] = [];
  candles.forEach((c, i) => {
    const v = values[i];
    if (v !== null && v !== undefined) out.push({ time: c.time, value: v });
  });
  return out;
}

/** The lines of the overlays switched on. */
export function overlayLines(
  candles: readonly Candle[],
  values: LineValues,
  on: Readonly<Record<Overlay, boolean>>,
): OverlayLine[] {
  const line = (id: keyof LineValues, overlay: Overlay, title: string, dashed = false): OverlayLine => ({
    id,
    overlay,
    title,
    colour: OVERLAYS.find((o) => o.id === overlay)!.colour,
    dashed,
    points: points(candles, values[id]),
  });
  return [
    ...(on.sma ? [line('sma', 'sma', 'SMA 20')] : []),
    ...(on.ema ? [line('ema', 'ema', 'EMA 20')] : []),
    ...(on.bollinger
      ? [
          line('upper', 'bollinger', 'BB upper'),
          line('middle', 'bollinger', 'BB middle', true),
          line('lower', 'bollinger', 'BB lower'),
        ]
      : []),
  ];
}
