/**
 * whale_movement: large transfers (at or above the detector's minimum) since the window's start,
 * kept for the coins of the watched crypto symbols and named by that symbol. Providers without a
 * transfer feed make this a gap, never "no whales".
 */
import type { MarketDataService } from '../../market-data/market-data.service.ts';
import type { LargeMove } from '../detectors/whale-movement.detector.ts';
import { detectWhaleMovement } from '../detectors/whale-movement.detector.ts';
import type { WatchdogSettings } from '../settings.ts';
import type { CheckOutcome, WatchdogDefinition } from '../watchdog.ts';
import type { AssetDescriber } from './assets.ts';
import { outcomeOf } from './outcome.ts';
import { charged, messageOf, type Subject, subjectsFor, throwIfAborted } from './shared.ts';

export const TRANSFERS_SUBJECT = 'transfers';

export function createWhaleMovementCheck(
  deps: { readonly marketData: MarketDataService; readonly describe: AssetDescriber },
  settings: WatchdogSettings,
): WatchdogDefinition {
  const { marketData, describe } = deps;
  const detector = settings.detectors.whale_movement;
  const usd = (v: number) => `USD ${(v / 1e6).toFixed(v % 1e6 === 0 ? 0 : 1)}M`;
  return {
    name: 'whale_movement',
    description: `Transfers above ${usd(detector.minUsd)} in a watched coin`,
    intervalMs: settings.intervalsMs.whale_movement,
    async check({ now, signal }): Promise<CheckOutcome> {
      const watched = subjectsFor(settings.symbols, marketData, 'quote');
      // The first watched pair of each coin names its moves (BTC transfers are BTC/USDT's).
      const byCoin = new Map<string, Subject>();
      for (const s of watched.subjects) {
        if (s.instrument.assetClass === 'crypto' && s.instrument.base && !byCoin.has(s.instrument.base))
          byCoin.set(s.instrument.base, s);
      }
      const subjects = [...byCoin.values()];
      const scope = { subjects, gaps: watched.gaps };
      if (subjects.length === 0) return outcomeOf(scope, [], [], describe);
      // One feed serves every coin: when it cannot be read, nothing was looked at.
      const feedGap = (error: string): CheckOutcome => ({
        findings: [],
        checked: 1 + watched.gaps.length,
        gaps: [{ subject: TRANSFERS_SUBJECT, error }, ...watched.gaps],
      });
      if (!marketData.supports('transfers')) return feedGap('no configured provider reports large transfers');
      const since = new Date(now.getTime() - detector.windowMs);
      let moves: LargeMove[];
      try {
        const transfers = (await charged(marketData, () => marketData.transfers(since, detector.minUsd)))
          .value;
        moves = transfers.flatMap((t) => {
          const subject = byCoin.get(t.asset.toUpperCase());
          if (!subject) return [];
          return [
            {
              id: t.id,
              symbol: subject.symbol,
              kind: 'transfer' as const,
              amount: t.amount,
              usdValue: t.usdValue,
              time: t.time,
              from: t.from,
              to: t.to,
            },
          ];
        });
      } catch (error) {
        throwIfAborted(signal);
        return feedGap(messageOf(error));
      }
      throwIfAborted(signal);
      return outcomeOf(scope, [], detectWhaleMovement({ now, moves }, detector), describe);
    },
  };
}
