import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bollinger, ema, sma } from '../src/quant/indicators/index.ts';
import { createTestApp, graphql, type TestApp } from './support/app.ts';

// biome-ignore lint/suspicious/noExplicitAny: JSON answers are checked by the expectations, not by types.
type Json = any;

const STUDIES = `query Studies($symbol: String!, $from: DateTime, $to: DateTime, $first: Int, $after: String,
  $sma: [Int!], $ema: [Int!], $bollinger: [BollingerBandsInput!]) {
  bars(symbol: $symbol, from: $from, to: $to, first: $first, after: $after) {
    nodes { time close }
    pageInfo { endCursor }
    studies(sma: $sma, ema: $ema, bollinger: $bollinger) { name kind period stdDevs values upper lower }
  }
}`;

const CLOSES = `query Closes($symbol: String!, $from: DateTime, $to: DateTime) {
  bars(symbol: $symbol, from: $from, to: $to, first: 1000) { nodes { time close } }
}`;

const RANGE = { symbol: 'MSFT', from: '2024-03-01T00:00:00Z', to: '2024-09-01T00:00:00Z' };

/** BarConnection.studies: indicator series aligned with a page of bars, on the simulated market. */
describe('bar studies', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ env: { RATE_LIMIT_MAX: '1000' } });
  });
  afterAll(async () => t?.close());

  const studies = async (variables: Record<string, unknown>) =>
    (await graphql<{ bars: Json }>(t.app, STUDIES, variables)).body;

  it('gives the quant indicators over the closes, one value per bar, warmed up by earlier bars', async () => {
    const body = await studies({ ...RANGE, first: 1000, sma: [20], ema: [50], bollinger: [{}] });
    expect(body.errors).toBeUndefined();
    const page = body.data!.bars;
    const [s, e, b] = page.studies;
    expect(s).toMatchObject({ name: 'SMA(20)', kind: 'SMA', period: 20, stdDevs: null, upper: null });
    expect(e).toMatchObject({ name: 'EMA(50)', kind: 'EMA', period: 50 });
    expect(b).toMatchObject({ name: 'BOLLINGER_BANDS(20, 2)', kind: 'BOLLINGER_BANDS', stdDevs: 2 });
    for (const study of page.studies) expect(study.values).toHaveLength(page.nodes.length);
    expect(b.upper).toHaveLength(page.nodes.length);
    // Warmed up: a value from the page's first bar on.
    expect(s.values.every((v: number | null) => v !== null)).toBe(true);
    expect(b.lower.every((v: number | null) => v !== null)).toBe(true);

    // Golden: the same functions over a longer range that holds the warm-up bars.
    const wide = (await graphql<{ bars: Json }>(t.app, CLOSES, { ...RANGE, from: '2023-09-01T00:00:00Z' }))
      .body.data!.bars.nodes;
    const offset = wide.findIndex((n: Json) => n.time === page.nodes[0].time);
    expect(offset).toBeGreaterThanOrEqual(49);
    expect(wide.slice(offset).map((n: Json) => n.time)).toEqual(page.nodes.map((n: Json) => n.time));
    const closes = wide.map((n: Json) => n.close);
    const smaRef = sma(closes, 20);
    const emaRef = ema(closes.slice(offset - 49), 50); // the EMA's seed is the first 50 closes it sees
    const bands = bollinger(closes, 20, 2);
    for (const i of [0, 1, 17, 60, page.nodes.length - 1]) {
      expect(s.values[i]).toBeCloseTo(smaRef[offset + i]!, 8);
      expect(e.values[i]).toBeCloseTo(emaRef[49 + i]!, 8);
      expect(b.values[i]).toBeCloseTo(bands.middle[offset + i]!, 8);
      expect(b.upper[i]).toBeCloseTo(bands.upper[offset + i]!, 8);
      expect(b.lower[i]).toBeCloseTo(bands.lower[offset + i]!, 8);
    }
  });

  it('joins pages into one line: a later page continues where the previous one ended', async () => {
    const whole = (await studies({ ...RANGE, first: 1000, sma: [10] })).data!.bars.studies[0].values;
    const first = (await studies({ ...RANGE, first: 50, sma: [10] })).data!.bars;
    const second = (await studies({ ...RANGE, first: 50, after: first.pageInfo.endCursor, sma: [10] })).data!
      .bars;
    expect([...first.studies[0].values, ...second.studies[0].values]).toEqual(whole.slice(0, 100));
  });

  it('gives no studies unless asked', async () => {
    expect((await studies({ ...RANGE, first: 5 })).data!.bars.studies).toEqual([]);
  });

  it('refuses bad arguments by name', async () => {
    const error = async (variables: Record<string, unknown>) =>
      (await studies({ ...RANGE, first: 5, ...variables })).errors?.[0] as Json;
    expect(await error({ sma: [1] })).toMatchObject({
      message: expect.stringContaining('from 2 to 500'),
      extensions: { code: 'BAD_USER_INPUT', field: 'sma[0]' },
    });
    expect(await error({ ema: [20, 501] })).toMatchObject({ extensions: { field: 'ema[1]' } });
    expect(await error({ bollinger: [{ period: 0 }] })).toMatchObject({
      extensions: { field: 'bollinger[0].period' },
    });
    expect(await error({ bollinger: [{ stdDevs: 0 }] })).toMatchObject({
      extensions: { field: 'bollinger[0].stdDevs' },
    });
    expect(await error({ sma: [5, 10, 20], ema: [5, 10], bollinger: [{}, {}] })).toMatchObject({
      message: expect.stringContaining('at most 6'),
      extensions: { code: 'BAD_USER_INPUT', field: 'studies' },
    });
  });
});
