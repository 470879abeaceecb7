import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { evaluateStatements } from '../src/fk-dsl/evaluator/evaluate.ts';
import { parse } from '../src/fk-dsl/parser.ts';
import { parseInstrument } from '../src/market-data/instruments.ts';
import { MarketDataService } from '../src/market-data/market-data.service.ts';
import { systemClock } from '../src/platform/clock.ts';
import { queryRows } from '../src/platform/db/raw.ts';
import { createLogger } from '../src/platform/observability/logger.ts';
import { createTestApp, graphql, type TestApp } from './support/app.ts';
import { createFakeProvider } from './support/fake-provider.ts';
import { ManualClock } from './support/manual-clock.ts';

// biome-ignore lint/suspicious/noExplicitAny: JSON answers are checked by the expectations, not by types.
type Json = any;

const EXECUTE = `query ($q: String!) { executeFkDsl(query: $q) { query status errors elapsedMs conventions
  statements { index kind statement result: resultJson error { code message } } } }`;

describe('FK-DSL over GraphQL on the simulated market', () => {
  let t: TestApp;

  beforeAll(async () => {
    // A clock that stands still: during market hours today's daily bar moves between the query and
    // the direct computation it is checked against; at one instant both see the same bars.
    t = await createTestApp({
      listen: true,
      env: { RATE_LIMIT_MAX: '1000' },
      overrides: { clock: new ManualClock() },
    });
  });
  afterAll(async () => t?.close());

  const run = async (q: string) => {
    const { body } = await graphql<{ executeFkDsl: Json }>(t.app, EXECUTE, { q });
    if (body.errors) throw new Error(JSON.stringify(body.errors));
    return body.data!.executeFkDsl;
  };

  it('evaluates real numbers that match the direct formulas on the same bars', async () => {
    const r = await run('evaluate aapl: price, volatility(30d), price_change(20), sma(50)');
    expect(r).toMatchObject({ status: 'COMPLETED', errors: 0 });
    const metrics = r.statements[0].result.asset.metrics as Json[];
    const value = (name: string) => metrics.find((m) => m.metric === name).value as number;

    const aapl = parseInstrument('AAPL');
    const now = t.app.deps.clock.now();
    const bars = (
      await t.app.deps.marketData.bars(aapl, '1d', new Date(now.getTime() - 200 * 86_400_000), now)
    ).value;
    const closes = bars.map((b) => b.close);
    const last31 = closes.slice(-31);
    const returns = last31.slice(1).map((c, i) => Math.log(c / last31[i]!));
    const m = returns.reduce((s, x) => s + x, 0) / returns.length;
    const sd = Math.sqrt(returns.reduce((s, x) => s + (x - m) ** 2, 0) / (returns.length - 1));
    expect(value('VOLATILITY(30d)')).toBeCloseTo(sd * Math.sqrt(252) * 100, 9);
    expect(value('PRICE_CHANGE(20)')).toBeCloseTo((closes.at(-1)! / closes.at(-21)! - 1) * 100, 9);
    expect(value('SMA(50)')).toBeCloseTo(closes.slice(-50).reduce((s, x) => s + x, 0) / 50, 9);
    expect(value('PRICE')).toBe((await t.app.deps.marketData.quote(aapl)).value.price);
    expect(r.statements[0].result.asset.lineage.dailyBars).toMatchObject({
      used: ['simulated'],
      simulated: true,
    });
    expect(r.conventions.RSI).toMatch(/Wilder/);
  });

  it('runs several statements with lowercase keywords and symbols like BTC/USDT and brk.b', async () => {
    const r = await run(`
      -- three statements
      compare brk.b vs jpm on: change, rsi;
      correlate BTC/USDT with ETH/USDT, sol-usdt window 60d;
      scan [aapl, msft, nvda, tsla] where rsi between 0 and 100 order by volatility(30d) desc limit 2`);
    expect(r.errors).toBe(0);
    const [compare, correlate, scan] = r.statements;
    expect(Object.keys(compare.result.table.CHANGE)).toEqual(['BRK.B', 'JPM']);
    expect(correlate.result.pairs).toHaveLength(2);
    for (const p of correlate.result.pairs) {
      expect(p.correlation).toBeGreaterThanOrEqual(-1);
      expect(p.correlation).toBeLessThanOrEqual(1);
      expect(p.observations).toBe(60);
    }
    expect(scan.result.matches).toHaveLength(2);
    const vols = scan.result.matches.map((x: Json) => x.values['VOLATILITY(30d)']);
    expect(vols[0]).toBeGreaterThanOrEqual(vols[1]);
  });

  it('answers MACRO regression and causality with statistics over aligned series', async () => {
    const r = await run(
      'MACRO: US10Y, CPI -> REGRESSION ON SPY WINDOW 5y; MACRO: VIX -> CAUSALITY ON SPY WINDOW 2y LAGS 2',
    );
    expect(r.errors).toBe(0);
    const [regression, causality] = r.statements.map((s: Json) => s.result);
    expect(regression).toMatchObject({
      frequency: 'monthly',
      transforms: { SPY: 'log change', US10Y: 'difference', CPI: 'log change' },
    });
    expect(regression.observations).toBeGreaterThan(50);
    expect(regression.result.coefficients.map((c: Json) => c.name)).toEqual(['intercept', 'US10Y', 'CPI']);
    expect(regression.result.rSquared).toBeGreaterThanOrEqual(0);
    expect(causality.result[0]['VIX -> SPY']).toMatchObject({ lags: 2, dfNumerator: 2 });
  });

  it('keeps going when one statement fails, reporting that statement only', async () => {
    const r = await run('EVALUATE AAPL: PRICE; SCAN MOON WHERE RSI < 30; EVALUATE AAPL: CORRELATE(ZZZZ)');
    expect(r.errors).toBe(1);
    expect(r.statements[1].error).toEqual({
      code: 'FKDSL_QUERY_ERROR',
      message: expect.stringContaining('unknown universe MOON'),
    });
    expect(r.statements[0].result.asset.metrics[0].value).toBeGreaterThan(0);
    // An unknown asset as a metric's argument is that metric's error; the statement stands.
    expect(r.statements[2].result.asset.metrics[0]).toMatchObject({
      value: null,
      error: expect.stringContaining('unknown symbol ZZZZ'),
    });
  });

  it('fails a statement naming an unknown asset with UNKNOWN_SYMBOL and why; SCAN skips it', async () => {
    const r = await run(
      'EVALUATE ZZZZ: PRICE, RSI; COMPARE AAPL VS ZZZZ ON: PRICE; CORRELATE AAPL, ZZZZ; ' +
        'MACRO: US10Y -> REGRESSION ON ZZZZ; SCAN [AAPL, ZZZZ] WHERE PRICE > 0',
    );
    const unknown = {
      code: 'UNKNOWN_SYMBOL',
      message: 'unknown symbol ZZZZ: no provider knows it (simulated: does not list ZZZZ)',
    };
    expect(r.errors).toBe(4);
    for (const s of r.statements.slice(0, 4)) expect(s).toMatchObject({ result: null, error: unknown });
    expect(r.statements[4].result.matches.map((m: Json) => m.symbol)).toEqual(['AAPL']);
    expect(r.statements[4].result.skipped).toEqual([{ symbol: 'ZZZZ', reason: `PRICE: ${unknown.message}` }]);
  });

  it('reports syntax errors with position, expectation and a caret snippet, and no stack trace', async () => {
    const { body } = await graphql(t.app, EXECUTE, { q: 'EVALUATE AAPL:\n  PRICE, VOLATILTY(30d)' });
    expect(body.errors?.[0]).toMatchObject({
      extensions: {
        code: 'FKDSL_SYNTAX_ERROR',
        line: 2,
        column: 10,
        expected: 'a metric name',
        found: "'VOLATILTY'",
      },
    });
    expect((body.errors![0] as Json).extensions.snippet).toBe('    PRICE, VOLATILTY(30d)\n           ^');
    expect(JSON.stringify(body)).not.toMatch(/at .*\.ts:\d+/);
  });

  it.each([
    [Array.from({ length: 21 }, () => 'EVALUATE AAPL: PRICE').join(';'), '21 statements; at most 20'],
    [
      `EVALUATE AAPL: CORRELATE(${Array.from({ length: 50 }, (_, i) => `S${i}`).join(', ')})`,
      '51 distinct symbols; at most 50',
    ],
    [`EVALUATE AAPL: PRICE ${'-'.repeat(10_001)}`, 'query: is 10022 characters; at most 10000'],
    ['EVALUATE AAPL: VOLATILITY(11y)', 'at most 2520 1d bars'],
  ])('refuses a query over its limits (%#)', async (q, message) => {
    const { body } = await graphql(t.app, EXECUTE, { q });
    const text = JSON.stringify(body);
    expect(text).toContain(message);
  });

  it('explains the plan without fetching', async () => {
    const { body } = await graphql<{ explainFkDsl: Json[] }>(
      t.app,
      'query ($q: String!) { explainFkDsl(query: $q) { statement kind fetches { symbol dailyBars } computations } }',
      { q: 'EVALUATE AAPL: VOLATILITY(30d), SMA(200), BETA' },
    );
    const plan = body.data!.explainFkDsl[0];
    expect(plan.fetches).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ symbol: 'AAPL', dailyBars: 1000 }),
        expect.objectContaining({ symbol: 'SPY', dailyBars: 253 }),
      ]),
    );
    expect(plan.computations[0]).toMatch(/^VOLATILITY\(30d\): annualised volatility/);
  });

  it('runs a submitted query as a task stored in the database, to completion', async () => {
    const submitted = await graphql<{ submitFkDsl: Json }>(
      t.app,
      'mutation ($q: String!) { submitFkDsl(query: $q) { taskId status } }',
      { q: 'EVALUATE MSFT: PRICE, RSI' },
    );
    const { taskId, status } = submitted.body.data!.submitFkDsl;
    expect(status).toBe('QUEUED');
    const rows = await queryRows<{ status: string }>(
      t.app.deps.database.db,
      sql`select status from fk_dsl_tasks where id = ${taskId}`,
    );
    expect(rows).toHaveLength(1);
    const poll =
      'query ($id: ID!) { fkDslTask(taskId: $id) { status startedAt finishedAt result { statements { result: resultJson } } error { code } } }';
    const task = await vi.waitFor(
      async () => {
        const { body } = await graphql<{ fkDslTask: Json }>(t.app, poll, { id: taskId });
        expect(body.data!.fkDslTask.status).toBe('COMPLETED');
        return body.data!.fkDslTask;
      },
      { timeout: 15_000, interval: 200 },
    );
    expect(task.result.statements[0].result.asset.metrics.map((m: Json) => m.metric)).toEqual([
      'PRICE',
      'RSI',
    ]);
    expect(Date.parse(task.finishedAt)).toBeGreaterThanOrEqual(Date.parse(task.startedAt));
  });

  it('says clearly when a task id is malformed or unknown', async () => {
    const poll = 'query ($id: ID!) { fkDslTask(taskId: $id) { status } }';
    expect((await graphql(t.app, poll, { id: 'nope' })).body.errors?.[0]).toMatchObject({
      extensions: { code: 'BAD_USER_INPUT', field: 'taskId' },
    });
    expect(
      (await graphql(t.app, poll, { id: '00000000-0000-4000-8000-000000000000' })).body.errors?.[0],
    ).toMatchObject({
      extensions: { code: 'NOT_FOUND' },
    });
  });
});

describe('FK-DSL data plan', () => {
  it('fetches each instrument’s bars once per query, however many statements and metrics use them', async () => {
    const fake = createFakeProvider('fake', { capabilities: ['quote', 'bars'] });
    fake.prices.set('AAPL', 100);
    fake.prices.set('MSFT', 200);
    const marketData = new MarketDataService([fake], systemClock, createLogger('silent'));
    const program = parse(
      'EVALUATE AAPL: SMA(20), VOLATILITY(30d), RSI; EVALUATE AAPL: CORRELATE(MSFT); COMPARE AAPL VS MSFT ON: SMA(50)',
    );
    const results = await evaluateStatements(
      program.statements.map((s) => (s.kind === 'explain' ? s.statement : s)),
      { marketData, clock: systemClock, universe: () => [] },
    );
    expect(results.every((r) => r.ok)).toBe(true);
    expect(fake.calls.bars).toBe(2);
  });
});
