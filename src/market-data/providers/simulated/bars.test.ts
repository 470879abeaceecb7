import { describe, expect, it } from 'vitest';
import type { BarInterval } from '../../types.ts';
import { ProviderError } from '../provider-errors.ts';
import { pathBars, pathBarsSliced } from './bars.ts';
import { SimulatedMarket } from './market.ts';
import { type Known, resolve } from './universe.ts';

const NOW = Date.parse('2025-06-11T15:03:27.500Z');
const DAY = 86_400_000;

describe('simulated bars built in slices', () => {
  const market = new SimulatedMarket('vigil', 'normal');
  const cases: Array<[Known, BarInterval, number]> = [
    [resolve({ symbol: 'AAPL', assetClass: 'equity' })!, '1h', 30],
    [resolve({ symbol: 'BTC/USDT', assetClass: 'crypto' })!, '1h', 12],
    [resolve({ symbol: 'EUR/USD', assetClass: 'fx' })!, '15m', 4],
    [resolve({ symbol: 'MSFT', assetClass: 'equity' })!, '1d', 900],
  ];

  it.each(cases)('are the bars of the one-piece build (%o %s)', async (known, interval, days) => {
    const view = known.view!;
    const path = market.path(view.path);
    const args = [market, path, view, interval, NOW - days * DAY, NOW + DAY, NOW] as const;
    const sliced = await pathBarsSliced(...args, new AbortController().signal);
    expect(sliced.length).toBeGreaterThan(days / 2);
    expect(sliced).toEqual(pathBars(...args));
  });

  it('stop when the caller gives up while they wait for a slice', async () => {
    const view = resolve({ symbol: 'ETH/USDT', assetClass: 'crypto' })!.view!;
    const controller = new AbortController();
    const building = pathBarsSliced(
      market,
      market.path(view.path),
      view,
      '1h',
      NOW - 60 * DAY,
      NOW,
      NOW,
      controller.signal,
    );
    controller.abort();
    await expect(building).rejects.toBeInstanceOf(ProviderError);
    await expect(building).rejects.toMatchObject({ kind: 'timeout' });
  });
});
