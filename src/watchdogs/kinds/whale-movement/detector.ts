/**
 * Whale movements: single transfers or trades worth more than a USD threshold, seen within the
 * window before `now`. Moves are grouped per asset so one finding says "N large moves in BTC" and
 * a burst of whale trades is one condition, graded by its largest move.
 */
import { type Finding, gradeAbove } from '../../detectors/finding.ts';

export interface WhaleMovementSettings {
  /** A move worth more than this (USD) is a whale move, `medium`. */
  readonly minUsd: number;
  /** Largest move above this: `high`. */
  readonly highUsd: number;
  /** Largest move above this: `critical`. */
  readonly criticalUsd: number;
  /** Moves older than this before `now` are not considered. */
  readonly windowMs: number;
  /** Moves listed in a finding's data (the largest ones); the count and total cover all. */
  readonly maxListed: number;
}

export const DEFAULT_WHALE_MOVEMENT_SETTINGS: WhaleMovementSettings = Object.freeze({
  minUsd: 1_000_000,
  highUsd: 10_000_000,
  criticalUsd: 100_000_000,
  windowMs: 15 * 60_000,
  maxListed: 5,
});

/** A large exchange trade or on-chain transfer, valued in USD by the market-data layer. */
export interface LargeMove {
  readonly id: string;
  readonly symbol: string;
  readonly kind: 'trade' | 'transfer';
  readonly amount: number;
  readonly usdValue: number;
  readonly time: Date;
  /** Venue of a trade, or the sending address / exchange of a transfer. */
  readonly from?: string;
  readonly to?: string;
}

export interface WhaleMovementInput {
  readonly now: Date;
  readonly moves: readonly LargeMove[];
}

export interface WhaleMovementData {
  readonly count: number;
  readonly totalUsd: number;
  readonly largestUsd: number;
  readonly moves: readonly {
    readonly id: string;
    readonly kind: LargeMove['kind'];
    readonly amount: number;
    readonly usdValue: number;
    readonly time: string;
    readonly from: string | null;
    readonly to: string | null;
  }[];
  readonly minUsd: number;
  readonly highUsd: number;
  readonly criticalUsd: number;
}

/** Whale moves in one asset. */
export type WhaleMovementFinding = Finding<WhaleMovementData, 'whale_movement'>;

export function detectWhaleMovement(
  input: WhaleMovementInput,
  settings: WhaleMovementSettings = DEFAULT_WHALE_MOVEMENT_SETTINGS,
): WhaleMovementFinding[] {
  const now = input.now.getTime();
  const bySymbol = new Map<string, LargeMove[]>();
  const seen = new Set<string>();
  for (const m of input.moves) {
    const age = now - m.time.getTime();
    if (age < 0 || age > settings.windowMs || !(m.usdValue > settings.minUsd)) continue;
    // The same trade may arrive from a stream and a poll.
    if (seen.has(`${m.kind}:${m.id}`)) continue;
    seen.add(`${m.kind}:${m.id}`);
    const list = bySymbol.get(m.symbol) ?? [];
    list.push(m);
    bySymbol.set(m.symbol, list);
  }
  const findings: WhaleMovementFinding[] = [];
  for (const [symbol, moves] of bySymbol) {
    moves.sort((a, b) => b.usdValue - a.usdValue);
    const largestUsd = moves[0]!.usdValue;
    const totalUsd = moves.reduce((s, m) => s + m.usdValue, 0);
    const severity =
      gradeAbove(largestUsd, [
        [settings.highUsd, 'high'],
        [settings.criticalUsd, 'critical'],
      ]) ?? 'medium';
    findings.push({
      eventType: 'whale_movement',
      severity,
      symbol,
      subject: symbol,
      description:
        `${moves.length} whale move${moves.length === 1 ? '' : 's'} in ${symbol}: ` +
        `largest $${usd(largestUsd)}, total $${usd(totalUsd)}`,
      data: {
        count: moves.length,
        totalUsd,
        largestUsd,
        moves: moves.slice(0, settings.maxListed).map((m) => ({
          id: m.id,
          kind: m.kind,
          amount: m.amount,
          usdValue: m.usdValue,
          time: m.time.toISOString(),
          from: m.from ?? null,
          to: m.to ?? null,
        })),
        minUsd: settings.minUsd,
        highUsd: settings.highUsd,
        criticalUsd: settings.criticalUsd,
      },
    });
  }
  return findings;
}

function usd(value: number): string {
  return value >= 1e6 ? `${(value / 1e6).toFixed(2)}M` : value.toFixed(0);
}
