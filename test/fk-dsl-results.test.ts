import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESULT_FRAGMENTS, resultWire } from '../src/fk-dsl/fk-dsl-wire.ts';
import { createTestApp, graphql, type TestApp } from './support/app.ts';
import { ManualClock } from './support/manual-clock.ts';

// biome-ignore lint/suspicious/noExplicitAny: JSON answers are checked by the expectations, not by types.
type Json = any;

/**
 * FK-DSL statement results as GraphQL types, one per statement kind, and the tools' JSON `result`
 * rebuilt from them: the same keys, order and values as the deprecated `resultJson`.
 */

const TYPED = /* GraphQL */ `
  query ($q: String!) {
    executeFkDsl(query: $q) {
      status
      statements { index kind statement result { ...FkDslResultWire } resultJson error { code message } }
    }
  }
  ${RESULT_FRAGMENTS}`;

const QUERIES = {
  evaluate: 'EVALUATE AAPL: PRICE, VOLATILITY(30d), TECHNICAL(RSI, MACD, SMA(20)), CORRELATE(MSFT), PE',
  compare: 'COMPARE AAPL VS MSFT ON: CHANGE, MACD, VOLATILITY(30d)',
  correlate: 'CORRELATE BTC/USDT, ETH/USDT, SOL/USDT PERIOD(60d)',
  regression: 'MACRO: US10Y, CPI -> REGRESSION ON SPY WINDOW 5y',
  correlation: 'MACRO: US10Y, CPI -> CORRELATION ON SPY WINDOW 5y',
  impact: 'MACRO: US10Y, CPI -> IMPACT ON SPY WINDOW 5y',
  causality: 'MACRO: VIX -> CAUSALITY ON SPY WINDOW 2y',
  causalityLags: 'MACRO: VIX -> CAUSALITY ON SPY WINDOW 2y LAGS 2',
  scan: 'SCAN [AAPL, MSFT, NVDA, ZZZZQQ] WHERE RSI BETWEEN 0 AND 100 ORDER BY VOLATILITY(30d) DESC',
  explain: 'EXPLAIN EVALUATE AAPL: VOLATILITY(30d), BETA',
} as const;

/** Every number in a value, to check none carries float noise. */
function numbers(value: unknown): number[] {
  if (typeof value === 'number') return [value];
  if (Array.isArray(value)) return value.flatMap(numbers);
  if (value && typeof value === 'object') return Object.values(value).flatMap(numbers);
  return [];
}

describe('typed FK-DSL results', () => {
  let t: TestApp;
  const runs = new Map<string, Json>();

  beforeAll(async () => {
    t = await createTestApp({
      listen: true,
      env: { RATE_LIMIT_MAX: '1000' },
      overrides: { clock: new ManualClock() },
    });
  });
  afterAll(async () => t?.close());

  const run = async (name: keyof typeof QUERIES): Promise<Json> => {
    if (!runs.has(name)) {
      const { body } = await graphql<{ executeFkDsl: Json }>(t.app, TYPED, { q: QUERIES[name] });
      if (body.errors) throw new Error(JSON.stringify(body.errors));
      runs.set(name, body.data!.executeFkDsl);
    }
    return runs.get(name);
  };
  const only = async (name: keyof typeof QUERIES) => {
    const r = await run(name);
    expect(r.status).toBe('COMPLETED');
    expect(r.statements[0].error).toBeNull();
    return r.statements[0];
  };

  it('EVALUATE: metrics with units, windows, components and lineage', async () => {
    const s = await only('evaluate');
    expect(s.kind).toBe('EVALUATE');
    expect(s.result.__typename).toBe('FkDslEvaluateResult');
    const { asset } = s.result;
    expect(asset).toMatchObject({ symbol: 'AAPL', written: 'AAPL', assetClass: 'EQUITY' });
    const [price, vol, technical, correlate] = asset.metrics;
    expect(price).toMatchObject({ metric: 'PRICE', unit: 'PRICE', components: null, window: null });
    expect(price.value).toBeGreaterThan(0);
    expect(vol).toMatchObject({ unit: 'PERCENT', window: { interval: 'DAY', bars: 30, text: '30d' } });
    expect(technical).toMatchObject({ metric: 'TECHNICAL(RSI, MACD, SMA(20))', unit: 'OBJECT', value: null });
    expect(technical.components.map((c: Json) => [c.name, c.value === null ? null : typeof c.value])).toEqual(
      [
        ['RSI', 'number'],
        ['MACD', null],
        ['SMA(20)', 'number'],
      ],
    );
    expect(technical.components[1].components.map((c: Json) => c.name)).toEqual([
      'macd',
      'signal',
      'histogram',
    ]);
    expect(correlate.components).toEqual([{ name: 'MSFT', value: expect.any(Number), components: null }]);
    expect(asset.lineage.map((l: Json) => l.kind)).toEqual(expect.arrayContaining(['QUOTE', 'DAILY_BARS']));
    expect(asset.lineage[0]).toMatchObject({ used: ['simulated'], simulated: true });
  });

  it('COMPARE: each asset, and a table of rows (metrics) by columns (assets)', async () => {
    const s = await only('compare');
    expect(s.result.__typename).toBe('FkDslCompareResult');
    expect(s.result.table.rows.map((r: Json) => r.metric)).toEqual(['CHANGE', 'MACD', 'VOLATILITY(30d)']);
    for (const [i, row] of s.result.table.rows.entries()) {
      expect(row.cells.map((c: Json) => c.symbol)).toEqual(['AAPL', 'MSFT']);
      for (const [j, cell] of row.cells.entries()) {
        const metric = s.result.assets[j].metrics[i];
        expect({ value: cell.value, components: cell.components }).toEqual({
          value: metric.value,
          components: metric.components,
        });
      }
    }
  });

  it('CORRELATE: every pair with its coefficient and common dates', async () => {
    const s = await only('correlate');
    expect(s.result).toMatchObject({ __typename: 'FkDslCorrelateResult', window: '60d' });
    expect(s.result.pairs.map((p: Json) => [p.a, p.b])).toEqual([
      ['BTC/USDT', 'ETH/USDT'],
      ['BTC/USDT', 'SOL/USDT'],
      ['ETH/USDT', 'SOL/USDT'],
    ]);
    for (const p of s.result.pairs) {
      expect(Math.abs(p.correlation)).toBeLessThanOrEqual(1);
      expect(p.observations).toBe(60);
      expect(Date.parse(p.to)).toBeGreaterThan(Date.parse(p.from));
    }
  });

  it('MACRO: one typed field per analysis, the others null', async () => {
    const regression = (await only('regression')).result;
    expect(regression).toMatchObject({
      __typename: 'FkDslMacroResult',
      analysis: 'REGRESSION',
      target: 'SPY',
      indicators: ['US10Y', 'CPI'],
      correlations: null,
      impacts: null,
      causality: null,
    });
    expect(regression.transforms).toEqual([
      { symbol: 'SPY', transform: 'LOG_CHANGE' },
      { symbol: 'US10Y', transform: 'DIFFERENCE' },
      { symbol: 'CPI', transform: 'LOG_CHANGE' },
    ]);
    expect(regression.regression.coefficients.map((c: Json) => c.name)).toEqual([
      'intercept',
      'US10Y',
      'CPI',
    ]);
    expect(regression.regression).toMatchObject({ n: regression.observations, k: 3 });

    const correlation = (await only('correlation')).result;
    expect(correlation).toMatchObject({ analysis: 'CORRELATION', regression: null });
    expect(correlation.correlations.map((c: Json) => c.indicator)).toEqual(['US10Y', 'CPI']);

    const impact = (await only('impact')).result;
    expect(impact.impacts.map((i: Json) => i.indicator)).toEqual(['US10Y', 'CPI']);
    for (const i of impact.impacts) expect(i.impactPercent).toBeCloseTo(i.impact * 100, 8);

    const chosen = (await only('causality')).result.causality[0];
    expect(chosen.reverse).toMatchObject({ lags: chosen.forward.lags, aicByLag: null });
    expect(chosen.forward.aicByLag.length).toBeGreaterThan(0);
    const given = (await only('causalityLags')).result.causality[0];
    expect(given.forward).toMatchObject({ lags: 2, dfNumerator: 2, aicByLag: null });
    const { body } = await graphql<{ executeFkDsl: Json }>(
      t.app,
      `query ($q: String!) { executeFkDsl(query: $q) { statements { result { ... on FkDslMacroResult {
        causality { indicator forward { cause effect conclusion } reverse { cause effect } } } } } } }`,
      { q: QUERIES.causality },
    );
    expect(body.data!.executeFkDsl.statements[0].result.causality).toEqual([
      {
        indicator: 'VIX',
        forward: { cause: 'VIX', effect: 'SPY', conclusion: expect.stringMatching(/^(CAUSES|NO_EVIDENCE)$/) },
        reverse: { cause: 'SPY', effect: 'VIX' },
      },
    ]);
  });

  it('SCAN: matching instruments as rows of typed values, and the skipped ones with a reason', async () => {
    const s = await only('scan');
    expect(s.result).toMatchObject({ __typename: 'FkDslScanResult', universe: 'LIST', scanned: 4 });
    expect(s.result.matches).toHaveLength(3);
    for (const m of s.result.matches) {
      expect(m.values.map((v: Json) => v.metric)).toEqual(['RSI', 'VOLATILITY(30d)']);
    }
    const vols = s.result.matches.map((m: Json) => m.values[1].value);
    expect(vols).toEqual([...vols].sort((a, b) => b - a));
    expect(s.result.skipped).toEqual([
      { symbol: 'ZZZZQQ', reason: expect.stringContaining('unknown symbol') },
    ]);
  });

  it('EXPLAIN: the plan with typed fetches', async () => {
    const s = await only('explain');
    expect(s.kind).toBe('EXPLAIN');
    expect(s.result.plan).toMatchObject({
      kind: 'EVALUATE',
      statement: 'EVALUATE AAPL: VOLATILITY(30d), BETA',
    });
    expect(s.result.plan.fetches).toEqual(
      expect.arrayContaining([
        { symbol: 'AAPL', assetClass: 'EQUITY', quote: false, profile: false, dailyBars: 253, hourlyBars: 0 },
        expect.objectContaining({ symbol: 'SPY', dailyBars: 253 }),
      ]),
    );
  });

  it('rebuilds the JSON result exactly (keys, order, values) from the typed one, for every kind', async () => {
    for (const name of Object.keys(QUERIES) as (keyof typeof QUERIES)[]) {
      for (const s of (await run(name)).statements) {
        expect(JSON.stringify(resultWire(s.result)), `${name} #${s.index}`).toBe(
          JSON.stringify(s.resultJson),
        );
      }
    }
  });

  it('carries no float noise: every number has at most 12 significant digits', async () => {
    for (const name of Object.keys(QUERIES) as (keyof typeof QUERIES)[]) {
      for (const n of numbers((await run(name)).statements)) {
        expect(Number(n.toPrecision(12)), `${name}: ${n}`).toBe(n);
      }
    }
  });

  it('types the error of a failed statement by ErrorCode, the others still answering', async () => {
    const { body } = await graphql<{ executeFkDsl: Json }>(t.app, TYPED, {
      q: 'EVALUATE AAPL: PRICE; SCAN MOON WHERE RSI < 30',
    });
    const [ok, failed] = body.data!.executeFkDsl.statements;
    expect(ok.result.__typename).toBe('FkDslEvaluateResult');
    expect(failed).toMatchObject({ kind: 'SCAN', result: null, resultJson: null });
    expect(failed.error).toEqual({ code: 'FKDSL_QUERY_ERROR', message: expect.stringContaining('MOON') });
  });

  it('gives the execute-fk-dsl tool the JSON result it always had, with lower-case values', async () => {
    const query = `${QUERIES.evaluate}; ${QUERIES.scan}; ${QUERIES.explain}`;
    const response = await t.app.fetch('/mcp/tools/execute-fk-dsl', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query }),
    });
    expect(response.status).toBe(200);
    const wire = (await response.json()) as Json;
    expect(wire).toMatchObject({ query, status: 'completed', result: { errors: 0 } });
    const { body } = await graphql<{ executeFkDsl: Json }>(t.app, TYPED, { q: query });
    const dropCache = (v: unknown) =>
      JSON.parse(JSON.stringify(v, (k, x) => (k === 'cacheHit' ? undefined : x)));
    expect(wire.result.statements.map((s: Json) => [s.kind, dropCache(s.result)])).toEqual(
      body.data!.executeFkDsl.statements.map((s: Json) => [s.kind.toLowerCase(), dropCache(s.resultJson)]),
    );
    expect(wire.result.statements[0].result.asset).toMatchObject({ assetClass: 'equity' });
    expect(wire.result.statements[0].result.asset.metrics[1]).toMatchObject({
      unit: 'percent',
      window: { interval: '1d', bars: 30, text: '30d' },
    });
    expect(wire.result.statements[2].result.plan.kind).toBe('evaluate');
  });

  it('gives a task an id, the same as its taskId', async () => {
    const { body } = await graphql<{ submitFkDsl: Json }>(
      t.app,
      'mutation ($q: String!) { submitFkDsl(query: $q) { id taskId status } }',
      { q: 'EVALUATE AAPL: PRICE' },
    );
    const task = body.data!.submitFkDsl;
    expect(task.id).toBe(task.taskId);
    expect(task.status).toBe('QUEUED');
  });
});
