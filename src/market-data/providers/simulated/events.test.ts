import { describe, expect, it } from 'vitest';
import { DAY_MS, dayIndexOf, sessionOf } from './calendar.ts';
import { Derivatives, tickSize } from './derivatives.ts';
import { DEMO_REPORT_RETENTION_MS, EarningsBook } from './earnings.ts';
import { Rand } from './rng.ts';
import { TRANSFER_ASSETS, TransferFeed } from './transfers.ts';
import { LISTED } from './universe-data.ts';
import { VenueBoard } from './venues.ts';

const rand = Rand.fromSeed('events');
const NOW = Date.parse('2025-06-11T15:03:17Z');
const AAPL = LISTED.find((l) => l.symbol === 'AAPL')!;
const flatPrice = () => 200;

describe('earnings', () => {
  const book = new EarningsBook(rand, false);

  it('reports every quarter, before the open or after the close of a trading day', () => {
    const reports = book.reports(AAPL, Date.parse('2016-01-01'), Date.parse('2025-06-01'), NOW, flatPrice);
    expect(reports.length).toBeGreaterThanOrEqual(37);
    expect(reports.length).toBeLessThanOrEqual(39);
    for (let i = 0; i < reports.length; i++) {
      const r = reports[i]!;
      const session = sessionOf('us', dayIndexOf(r.reportDate.getTime()))!;
      expect(session).not.toBeNull();
      const outside =
        r.reportDate.getTime() < session.openMs || r.reportDate.getTime() >= session.openMs + 390 * 60_000;
      expect(outside).toBe(true);
      expect(r.reportDate.getTime() - r.fiscalPeriodEnd!.getTime()).toBeGreaterThan(19 * DAY_MS);
      if (i > 0) {
        const gap = r.reportDate.getTime() - reports[i - 1]!.reportDate.getTime();
        expect(gap).toBeGreaterThan(75 * DAY_MS);
        expect(gap).toBeLessThan(110 * DAY_MS);
      }
      // EPS follow the price through the target P/E (price 200, P/E 30: about 1.67 a quarter).
      expect(r.estimatedEps!).toBeGreaterThan(1.4);
      expect(r.estimatedEps!).toBeLessThan(1.95);
    }
    expect(book.trailingEps(AAPL, NOW, flatPrice)!).toBeGreaterThan(5);
  });

  it('gaps the price on the first session after a report', () => {
    const [report] = book.reports(AAPL, Date.parse('2024-04-01'), Date.parse('2024-07-01'), NOW, flatPrice);
    const day = dayIndexOf(report!.reportDate.getTime());
    const gaps = [day, day + 1, day + 2, day + 3].map((d) => book.gapOn('AAPL', d));
    expect(gaps.filter((g) => g !== 0)).toHaveLength(1);
    expect(book.gapOn('AAPL', day - 10)).toBe(0);
  });

  it('adds demo reports in rotation, kept for a week', () => {
    const demo = new EarningsBook(rand, true);
    const recent = demo
      .reports(AAPL, NOW - DAY_MS, NOW, NOW, flatPrice)
      .filter((r) => r.fiscalPeriodEnd === null);
    expect(recent.length).toBeGreaterThan(50);
    expect(recent.every((r) => r.reportDate.getTime() <= NOW && r.surprisePercent !== null)).toBe(true);
    const old = demo.reports(
      AAPL,
      NOW - DEMO_REPORT_RETENTION_MS - DAY_MS,
      NOW - DEMO_REPORT_RETENTION_MS,
      NOW,
      flatPrice,
    );
    expect(old.filter((r) => r.fiscalPeriodEnd === null)).toHaveLength(0);
  });
});

describe('funding and liquidity', () => {
  const normal = new Derivatives(rand, false);
  const demo = new Derivatives(rand, true);

  it('funds every 8 hours at 00, 08 and 16 UTC', () => {
    expect(new Date(normal.nextFunding(Date.parse('2025-06-11T15:03:00Z'))).toISOString()).toBe(
      '2025-06-11T16:00:00.000Z',
    );
    expect(new Date(normal.nextFunding(Date.parse('2025-06-11T16:00:00Z'))).toISOString()).toBe(
      '2025-06-12T00:00:00.000Z',
    );
  });

  it('keeps liquidity around 1 on average and lower during drains', () => {
    const samples: number[] = [];
    for (let t = NOW - 30 * DAY_MS; t < NOW; t += 5 * 60_000) samples.push(normal.liquidity('ETH', t));
    const mean = samples.reduce((a, b) => a + b, 0) / samples.length;
    expect(mean).toBeGreaterThan(0.9);
    expect(mean).toBeLessThan(1.1);
    expect(Math.min(...samples)).toBeLessThan(0.5);
  });

  it('builds books whose total depth follows liquidity', () => {
    const t = NOW;
    const book = demo.book('SOL', 150.123, tickSize(150.123), 15, 2, t);
    const total = [...book.bids, ...book.asks].reduce((s, l) => s + l.size, 0);
    expect(total).toBeCloseTo(2 * 15 * 2 * demo.liquidity('SOL', t), 3);
    expect(book.bids[0]!.price).toBeLessThan(150.123);
    expect(book.asks[0]!.price).toBeGreaterThan(150.123);
    expect(demo.book('SOL', 150.123, tickSize(150.123), 15, 2, t + 200)).toEqual(book);
    expect(tickSize(95_000)).toBeCloseTo(0.1, 12);
    expect(tickSize(0.33)).toBeCloseTo(0.000001, 12);
  });
});

describe('transfers', () => {
  const feed = new TransferFeed(rand, false);
  const price = (asset: string) => (asset === 'BTC' ? 60_000 : asset.startsWith('USD') ? 1 : 10);
  const all = TRANSFER_ASSETS.map((_, i) => i);

  it('is deterministic, ascending, above the floor, with chain-shaped labels', () => {
    const a = feed.between(NOW - 3_600_000, NOW, 0, all, price);
    expect(new TransferFeed(rand, false).between(NOW - 3_600_000, NOW, 0, all, price)).toEqual(a);
    expect(a.length).toBeGreaterThan(100);
    expect(new Set(a.map((t) => t.id)).size).toBe(a.length);
    for (let i = 0; i < a.length; i++) {
      const t = a[i]!;
      expect(t.usdValue).toBeGreaterThanOrEqual(100_000);
      expect(t.amount * price(t.asset)).toBeCloseTo(t.usdValue, 0);
      if (i > 0) expect(t.time.getTime()).toBeGreaterThanOrEqual(a[i - 1]!.time.getTime());
      for (const [label, type] of [
        [t.from, t.fromType],
        [t.to, t.toType],
      ] as const) {
        if (type === 'exchange') expect(label).toMatch(/^exchange:[a-z]+-[a-z]+-\d$/);
        if (type === 'wallet' && t.asset === 'BTC')
          expect(label).toMatch(/^wallet:bc1q[02-9ac-hj-np-z]{38}$/);
        if (type === 'wallet' && t.asset === 'ETH') expect(label).toMatch(/^wallet:0x[0-9a-f]{40}$/);
      }
    }
    // A later "now" only adds transfers; the earlier ones do not change.
    const later = feed.between(NOW - 3_600_000, NOW + 600_000, 0, all, price);
    expect(later.slice(0, a.length)).toEqual(a);
  });

  it('adds several large transfers every minute in demo activity', () => {
    const demo = new TransferFeed(rand, true);
    for (let minute = 0; minute < 30; minute++) {
      const end = NOW + minute * 60_000;
      expect(demo.between(end - 60_000, end, 1_000_000, all, price).length).toBeGreaterThanOrEqual(2);
    }
  });
});

describe('venues', () => {
  it('reports latency while up, slow answers when degraded and nothing when down', () => {
    const board = new VenueBoard(rand, true);
    const seen = new Set<string>();
    for (let t = NOW; t < NOW + 3_600_000; t += 60_000) {
      const statuses = board.statusAt(t);
      expect(statuses.some((s) => s.status !== 'up')).toBe(true);
      for (const s of statuses) {
        seen.add(s.status);
        if (s.status === 'up') expect(s.latencyMs!).toBeGreaterThanOrEqual(20);
        if (s.status === 'degraded') expect(s.latencyMs!).toBeGreaterThan(1_000);
        if (s.status === 'down') expect(s.detail).toMatch(/^simulated: (timeout|error)/);
      }
    }
    expect([...seen].sort()).toEqual(['degraded', 'down', 'up']);
  });
});
