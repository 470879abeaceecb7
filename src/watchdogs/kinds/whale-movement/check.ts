/**
 * whale_movement: large moves (at or above the detector's minimum) since the window's start, from
 * two feeds. Exchange trades are read per watched crypto pair a provider reports large trades for,
 * named by that pair, with the venue as `from`. On-chain transfers come from one feed for every
 * coin, named by the first watched pair of the coin. With neither feed configured this is a gap,
 * never "no whales"; a pair whose trades cannot be read is a gap for that pair.
 */
import type { MarketDataService } from '../../../market-data/market-data.service.ts';
import { outcomeOf, split } from '../../checks/outcome.ts';
import {
  charged,
  FETCH_CONCURRENCY,
  gapOf,
  mapLimited,
  type Subject,
  type Subjects,
  subjectsFor,
  throwIfAborted,
} from '../../checks/shared.ts';
import type { Check, CheckDeps, CheckGap, CheckOutcome, CheckSetup } from '../../watchdog.ts';
import type {
  LargeMove,
  WhaleMovementFinding,
  WhaleMovementInput,
  WhaleMovementSettings,
} from './detector.ts';

export const TRANSFERS_SUBJECT = 'transfers';

export function whaleMovementCheck(
  { marketData, describe }: CheckDeps,
  setup: CheckSetup<WhaleMovementSettings, WhaleMovementInput, WhaleMovementFinding>,
): Check<WhaleMovementFinding> {
  const { minUsd, windowMs } = setup.thresholds;
  return async ({ now, signal }): Promise<CheckOutcome<WhaleMovementFinding>> => {
    const watched = subjectsFor(setup.symbols, marketData, 'quote');
    const { byCoin, traded, transfersOn } = feedsFor(watched, marketData);
    if (byCoin.size === 0) return outcomeOf({ subjects: [], gaps: watched.gaps }, [], [], describe);
    if (!transfersOn && traded.length === 0) {
      return {
        findings: [],
        checked: 1 + watched.gaps.length,
        gaps: [
          { subject: TRANSFERS_SUBJECT, error: 'no configured provider reports large transfers or trades' },
          ...watched.gaps,
        ],
      };
    }
    const since = new Date(now.getTime() - windowMs);
    const trades = await readTrades(marketData, traded, since, minUsd, signal);
    const transfers = transfersOn
      ? await readTransfers(marketData, byCoin, since, minUsd, signal)
      : { moves: [], gap: undefined };
    throwIfAborted(signal);

    // Looked at: every pair whose trades were asked for, and every coin when transfers were read.
    const looked = new Map(traded.map((s) => [s.symbol, s]));
    if (transfersOn && !transfers.gap) for (const s of byCoin.values()) looked.set(s.symbol, s);
    const findings = setup.detect({ now, moves: [...trades.moves, ...transfers.moves] });
    const gaps = transfers.gap ? [transfers.gap, ...trades.gaps] : trades.gaps;
    const outcome = outcomeOf(
      { subjects: [...looked.values()], gaps: watched.gaps },
      gaps,
      findings,
      describe,
    );
    // A failed transfer feed counts once, as the feed: all gaps still means nothing was seen.
    return transfers.gap ? { ...outcome, checked: outcome.checked + 1 } : outcome;
  };
}

/**
 * Who the two feeds are read for: the watched crypto pairs a provider reports large trades for,
 * and, per coin, the first watched pair of it, which names its transfers (BTC transfers are
 * BTC/USDT's) when a transfer feed is configured.
 */
function feedsFor(watched: Subjects, marketData: MarketDataService) {
  const crypto = watched.subjects.filter((s) => s.instrument.assetClass === 'crypto' && s.instrument.base);
  const byCoin = new Map<string, Subject>();
  for (const s of crypto) if (!byCoin.has(s.instrument.base!)) byCoin.set(s.instrument.base!, s);
  const traded = crypto.filter((s) => marketData.supports('largeTrades', s.instrument));
  return { byCoin, traded, transfersOn: marketData.supports('transfers') };
}

/**
 * Large trades of each traded pair since `since`, named by the pair, with the venue as `from`; a
 * pair whose trades cannot be read is a gap.
 */
async function readTrades(
  marketData: MarketDataService,
  traded: readonly Subject[],
  since: Date,
  minUsd: number,
  signal: AbortSignal,
) {
  const results = await mapLimited(traded, FETCH_CONCURRENCY, signal, (s) =>
    charged(marketData, () => marketData.venues.largeTrades(s.instrument, since, minUsd)),
  );
  const trades = split(traded, results);
  const moves: LargeMove[] = trades.fetched.flatMap(({ subject, value }) =>
    value.value.map((t) => ({
      // Trade ids are unique per venue and pair only.
      id: `${t.venue}:${t.symbol}:${t.id}`,
      symbol: subject.symbol,
      kind: 'trade' as const,
      amount: t.quantity,
      usdValue: t.usdValue,
      time: t.time,
      from: t.venue,
    })),
  );
  return { moves, gaps: trades.gaps };
}

/**
 * Large transfers since `since` of the watched coins, each named by its coin's pair. One feed
 * serves every coin: when it cannot be read, no coin's transfers were looked at (`gap`).
 */
async function readTransfers(
  marketData: MarketDataService,
  byCoin: ReadonlyMap<string, Subject>,
  since: Date,
  minUsd: number,
  signal: AbortSignal,
): Promise<{ moves: LargeMove[]; gap: CheckGap | undefined }> {
  const moves: LargeMove[] = [];
  try {
    const transfers = (await charged(marketData, () => marketData.venues.transfers(since, minUsd))).value;
    for (const t of transfers) {
      const subject = byCoin.get(t.asset.toUpperCase());
      if (!subject) continue;
      moves.push({
        id: t.id,
        symbol: subject.symbol,
        kind: 'transfer',
        amount: t.amount,
        usdValue: t.usdValue,
        time: t.time,
        from: t.from,
        to: t.to,
      });
    }
  } catch (error) {
    throwIfAborted(signal);
    return { moves, gap: gapOf(TRANSFERS_SUBJECT, error) };
  }
  return { moves, gap: undefined };
}
