/** FK-DSL values in words: each number shown in its unit (see FkDslMetricUnit). */
import { formatNumber, formatPrice } from '../../ui.tsx';
import type { Component, Unit } from './queries.ts';

const ratio = new Intl.NumberFormat(undefined, { maximumFractionDigits: 4 });
const compact = new Intl.NumberFormat(undefined, { notation: 'compact', maximumFractionDigits: 2 });

export function formatValue(value: number | null | undefined, unit: Unit | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—';
  switch (unit) {
    case 'PERCENT':
      return `${formatNumber(value)} %`;
    case 'PRICE':
      return formatPrice(value);
    case 'CURRENCY':
    case 'VOLUME':
      return compact.format(value);
    case 'RATIO':
    case 'NUMBER':
      return ratio.format(value);
    default:
      return formatNumber(value);
  }
}

/** A p-value or a probability, small ones in scientific notation. */
export function formatP(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—';
  return value < 0.0001 ? value.toExponential(1) : ratio.format(value);
}

export function formatStat(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—';
  return Math.abs(value) < 0.001 && value !== 0 ? value.toExponential(3) : ratio.format(value);
}

/** Nested components (TECHNICAL(MACD) > macd) as flat rows: "MACD › signal". */
export function flatten(
  components: readonly Component[],
  prefix = '',
): { name: string; unit: Unit; value: number | null }[] {
  return components.flatMap((c) => {
    const name = prefix ? `${prefix} › ${c.name}` : c.name;
    return c.components?.length ? flatten(c.components, name) : [{ name, unit: c.unit, value: c.value }];
  });
}

/** Several values in one cell: "upper 389.4, middle 374.5". */
export function componentsText(components: readonly Component[]): string {
  return flatten(components)
    .map((c) => `${c.name} ${formatValue(c.value, c.unit)}`)
    .join(', ');
}

export function unitLabel(unit: Unit | null | undefined): string {
  return unit ? unit.toLowerCase() : '';
}
