/**
 * Liquidity drop: the order book's current depth against its average over the trailing window
 * (7 days). Depth is the quote-currency value resting within a band around the mid price, so a
 * book that only keeps far-away orders counts as thin.
 */

import type { OrderBook } from '../../../market-data/types.ts';
import { mean } from '../../../quant/indicators/index.ts';
import type { Finding, Severity } from '../../detectors/finding.ts';

export interface LiquidityDropSettings {
  /** Depth / average below which the book is `high`. */
  readonly highRatio: number;
  /** Below this it is `critical`. */
  readonly criticalRatio: number;
  /** Samples older than this before `now` are left out of the average. */
  readonly averageWindowMs: number;
  /** Fewer samples than this in the window: no judgement. */
  readonly minSamples: number;
  /** Half-width of the band around mid counted as depth (fraction: 0.01 = ±1 %). */
  readonly band: number;
}

export const DEFAULT_LIQUIDITY_DROP_SETTINGS: LiquidityDropSettings = Object.freeze({
  highRatio: 0.5,
  criticalRatio: 0.3,
  averageWindowMs: 7 * 86_400_000,
  minSamples: 12,
  band: 0.01,
});

/**
 * Quote-currency value of the bids and asks within `band` of the mid price; null for a book with
 * an empty side (no mid to measure from).
 */
export function depthWithinBand(book: OrderBook, band: number): number | null {
  const bestBid = book.bids[0]?.price;
  const bestAsk = book.asks[0]?.price;
  if (bestBid === undefined || bestAsk === undefined) return null;
  const mid = (bestBid + bestAsk) / 2;
  let depth = 0;
  for (const l of book.bids) if (l.price >= mid * (1 - band)) depth += l.price * l.size;
  for (const l of book.asks) if (l.price <= mid * (1 + band)) depth += l.price * l.size;
  return depth;
}

export interface DepthSample {
  readonly time: Date;
  readonly depth: number;
}

export interface LiquidityDropInput {
  readonly now: Date;
  readonly books: readonly {
    readonly symbol: string;
    readonly venue: string;
    /** Current depth, as depthWithinBand measures it. */
    readonly depth: number;
    /** Earlier depth samples, measured the same way. */
    readonly history: readonly DepthSample[];
  }[];
}

export interface LiquidityDropData {
  readonly venue: string;
  readonly depth: number;
  readonly averageDepth: number;
  readonly ratio: number;
  readonly samples: number;
  readonly highRatio: number;
  readonly criticalRatio: number;
}

/** A thin order book. */
export type LiquidityDropFinding = Finding<LiquidityDropData, 'liquidity_drop'>;

export function detectLiquidityDrop(
  input: LiquidityDropInput,
  settings: LiquidityDropSettings = DEFAULT_LIQUIDITY_DROP_SETTINGS,
): LiquidityDropFinding[] {
  const now = input.now.getTime();
  const findings: LiquidityDropFinding[] = [];
  for (const b of input.books) {
    if (!Number.isFinite(b.depth) || b.depth < 0) continue;
    const window: number[] = [];
    for (const s of b.history) {
      const age = now - s.time.getTime();
      if (age >= 0 && age <= settings.averageWindowMs && Number.isFinite(s.depth)) window.push(s.depth);
    }
    if (window.length < settings.minSamples) continue;
    const averageDepth = mean(window);
    if (!(averageDepth > 0)) continue;
    const ratio = b.depth / averageDepth;
    const severity: Severity | undefined =
      ratio < settings.criticalRatio ? 'critical' : ratio < settings.highRatio ? 'high' : undefined;
    if (!severity) continue;
    findings.push({
      eventType: 'liquidity_drop',
      severity,
      symbol: b.symbol,
      subject: `${b.symbol}@${b.venue}`,
      description:
        `${b.symbol} order-book depth on ${b.venue} is ${ratio.toFixed(2)}x its ` +
        `${Math.round(settings.averageWindowMs / 86_400_000)}-day average`,
      data: {
        venue: b.venue,
        depth: b.depth,
        averageDepth,
        ratio,
        samples: window.length,
        highRatio: settings.highRatio,
        criticalRatio: settings.criticalRatio,
      },
    });
  }
  return findings;
}
