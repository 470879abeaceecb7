/**
 * whale_movement: large moves (at or above the detector's minimum) since the window's start, from
 * two feeds. Exchange trades are read per watched crypto pair a provider reports large trades for,
 * named by that pair, with the venue as `from`. On-chain transfers come from one feed for every
 * coin, named by the first watched pair of the coin. With neither feed configured this is a gap,
 * never "no whales"; a pair whose trades cannot be read is a gap for that pair.
 */
import { outcomeOf, split } from '../../checks/outcome.ts';
import {
  charged,
  FETCH_CONCURRENCY,
  mapLimited,
  messageOf,
  type Subject,
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
    const crypto = watched.subjects.filter((s) => s.instrument.assetClass === 'crypto' && s.instrument.base);
    // The first watched pair of each coin names its transfers (BTC transfers are BTC/USDT's).
    const byCoin = new Map<string, Subject>();
    for (const s of crypto) if (!byCoin.has(s.instrument.base!)) byCoin.set(s.instrument.base!, s);
    const traded = crypto.filter((s) => marketData.supports('largeTrades', s.instrument));
    const transfersOn = marketData.supports('transfers');
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

    const tradeResults = await mapLimited(traded, FETCH_CONCURRENCY, signal, (s) =>
      charged(marketData, () => marketData.venues.largeTrades(s.instrument, since, minUsd)),
    );
    const trades = split(traded, tradeResults);
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

    // One feed serves every coin: when it cannot be read, no coin's transfers were looked at.
    let transferGap: CheckGap | undefined;
    if (transfersOn) {
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
        transferGap = { subject: TRANSFERS_SUBJECT, error: messageOf(error) };
      }
    }
    throwIfAborted(signal);

    // Looked at: every pair whose trades were asked for, and every coin when transfers were read.
    const looked = new Map(traded.map((s) => [s.symbol, s]));
    if (transfersOn && !transferGap) for (const s of byCoin.values()) looked.set(s.symbol, s);
    const findings = setup.detect({ now, moves });
    const gaps = transferGap ? [transferGap, ...trades.gaps] : trades.gaps;
    const outcome = outcomeOf(
      { subjects: [...looked.values()], gaps: watched.gaps },
      gaps,
      findings,
      describe,
    );
    // A failed transfer feed counts once, as the feed: all gaps still means nothing was seen.
    return transferGap ? { ...outcome, checked: outcome.checked + 1 } : outcome;
  };
}
