import type { Lineage } from '../arbitration/lineage.ts';
import type { Quote } from '../types.ts';
import type { TechnicalSummary } from './analytics.ts';

/** Plain-language summaries of tool results (English; see LANGUAGES in tool-args.ts). */

export function formatPrice(value: number): string {
  const abs = Math.abs(value);
  const digits = abs >= 1000 ? 2 : abs >= 1 ? 2 : abs >= 0.01 ? 4 : 8;
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

export function formatLarge(value: number): string {
  const abs = Math.abs(value);
  for (const [unit, size] of [
    ['T', 1e12],
    ['B', 1e9],
    ['M', 1e6],
    ['K', 1e3],
  ] as const) {
    if (abs >= size) return `${(value / size).toFixed(2)}${unit}`;
  }
  return value.toFixed(0);
}

export function formatTime(at: Date): string {
  return `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** How a narrative names its subject: `Apple Inc. (AAPL)`, or the bare symbol when no name is known. */
export function subjectLabel(name: string | null, symbol: string): string {
  return name ? `${name} (${symbol})` : symbol;
}

/** The sentences as one text; a part with nothing to say (an empty sentence) is left out. */
export function narrativeOf(sentences: readonly string[]): string {
  return sentences.filter(Boolean).join(' ');
}

export function quoteSentence(
  label: string,
  quote: Quote,
  reference: 'the previous close' | '24 hours earlier',
): string {
  const head = `${label} last traded at ${formatPrice(quote.price)} ${quote.currency} (${formatTime(quote.asOf)})`;
  if (quote.changePercent === null || quote.change === null) return `${head}.`;
  const direction = quote.change > 0 ? 'up' : quote.change < 0 ? 'down' : 'unchanged';
  if (direction === 'unchanged') return `${head}, unchanged from ${reference}.`;
  return `${head}, ${direction} ${Math.abs(quote.changePercent).toFixed(2)}% (${quote.change > 0 ? '+' : ''}${formatPrice(quote.change)}) from ${reference}.`;
}

export function technicalSentence(t: TechnicalSummary): string {
  const parts: string[] = [];
  if (t.rsi14 !== null) {
    const zone =
      t.rsi14 >= 70 ? 'overbought territory' : t.rsi14 <= 30 ? 'oversold territory' : 'neutral range';
    parts.push(`RSI(14) is ${t.rsi14.toFixed(1)} (${zone})`);
  }
  if (t.trend !== 'unknown')
    parts.push(
      `the trend is ${t.trend === 'sideways' ? 'sideways' : t.trend === 'uptrend' ? 'up' : 'down'} (close vs its 50- and 200-day averages)`,
    );
  if (t.volatility30d !== null)
    parts.push(`30-day annualised volatility is ${(t.volatility30d * 100).toFixed(1)}%`);
  return parts.length ? `${capitalize(parts.join('; '))}.` : '';
}

export function sourceSentence(lineage: Lineage): string {
  const used = lineage.used.join(', ');
  if (lineage.simulated)
    return `Source: ${used} (Vigil's simulated market: these values describe no real market).`;
  const agreement =
    lineage.used.length > 1 ? `, ${Math.round(lineage.agreement * 100)}% provider agreement` : '';
  return `Source: ${used}${agreement}.`;
}

export function disclaimer(lineage: Lineage): string {
  const base = 'For information only, not investment advice. Prices may be delayed by the provider.';
  return lineage.simulated
    ? `${base} Values come from Vigil's simulated market (no live provider is configured) and are not real prices.`
    : base;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
