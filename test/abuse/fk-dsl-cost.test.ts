import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseConfig } from '../../src/config.ts';
import { estimateCost } from '../../src/fk-dsl/cost.ts';
import { FkDslDeadlineError } from '../../src/fk-dsl/errors.ts';
import { Deadline } from '../../src/fk-dsl/evaluator/deadline.ts';
import { evaluateStatements } from '../../src/fk-dsl/evaluator/evaluate.ts';
import { parse } from '../../src/fk-dsl/parser.ts';
import { MarketDataService } from '../../src/market-data/market-data.service.ts';
import type { MarketDataProvider } from '../../src/market-data/providers/provider.ts';
import { createProviders } from '../../src/market-data/providers/registry.ts';
import { systemClock } from '../../src/platform/clock.ts';
import { createLogger } from '../../src/platform/observability/logger.ts';
import { createTestApp, graphql, type TestApp } from '../support/app.ts';
import { createFakeProvider } from '../support/fake-provider.ts';

// biome-ignore lint/suspicious/noExplicitAny: JSON answers are checked by the expectations, not by types.
type Json = any;

const EXECUTE = `query ($q: String!) { executeFkDsl(query: $q) { errors statements { kind result: resultJson error { code message } } } }`;
const SUBMIT = 'mutation ($q: String!) { submitFkDsl(query: $q) { taskId status } }';
const POLL =
  'query ($id: ID!) { fkDslTask(taskId: $id) { status result { statements { kind error { code message } } } } }';
const CRYPTO = ['BTC/USDT', 'ETH/USDT', 'SOL/USDT', 'XRP/USDT', 'ADA/USDT', 'DOGE/USDT'];
const LISTED = 'AAPL MSFT NVDA AMZN GOOGL META TSLA JPM KO PEP XOM SPY V UNH WMT HD'.split(' ');

/**
 * One short query could hold the event loop for half a minute (`SCAN ALL WHERE VOLATILITY(5000h)`
 * built years of minute paths for every instrument in one go). A query's cost is now estimated
 * from its plan and refused over FKDSL_MAX_COST, evaluation gives the loop back between slices of
 * work, and a deadline stops what runs too long.
 */
describe('FK-DSL cost, time slices and deadline', () => {
  describe('on a server with the default limits', () => {
    let t: TestApp;
    let barCalls = 0;

    beforeAll(async () => {
      const config = parseConfig({ NODE_ENV: 'test' });
      const simulated = createProviders(config.marketData, systemClock, config.watchdogs)[0]!;
      // The simulated market, counting the bar calls that reach it.
      const counted: MarketDataProvider = Object.assign(Object.create(simulated) as MarketDataProvider, {
        bars: (call: Parameters<NonNullable<MarketDataProvider['bars']>>[0]) => {
          barCalls++;
          return simulated.bars!(call);
        },
      });
      t = await createTestApp({
        listen: true,
        // A slow, shared CI machine must not turn the heavy query into a deadline error.
        env: { RATE_LIMIT_MAX: '1000', FKDSL_DEADLINE_MS: '120000' },
        overrides: { providers: [counted] },
      });
    });
    afterAll(async () => t?.close());

    const cost = (q: string) =>
      estimateCost(
        parse(q).statements.map((s) => (s.kind === 'explain' ? s.statement : s)),
        {
          marketData: t.app.deps.marketData,
          clock: t.app.deps.clock,
          universe: (name) => t.app.deps.fkDsl.universe(name),
        },
      ).total;

    it.each([
      ['a scan of every market on hourly history', 'SCAN ALL WHERE VOLATILITY(2000h) > 0 LIMIT 1'],
      [
        'every pair of many assets over ten years',
        `CORRELATE ${[...LISTED, ...CRYPTO].join(', ')} PERIOD(10y)`,
      ],
      [
        'statements that are only too heavy together',
        CRYPTO.slice(0, 5)
          .map((s) => `EVALUATE ${s}: VOLATILITY(2000h)`)
          .join('; '),
      ],
    ])('refuses %s before fetching anything, naming FKDSL_MAX_COST', async (_what, q) => {
      const limit = t.app.deps.config.fkDsl.maxCost;
      expect(cost(q)).toBeGreaterThan(limit);
      const before = barCalls;
      for (const document of [EXECUTE, SUBMIT]) {
        const { body } = await graphql(t.app, document, { q });
        expect(body.data ?? null).toBeNull();
        expect(body.errors?.[0]).toMatchObject({
          message: expect.stringContaining('FKDSL_MAX_COST'),
          extensions: { code: 'FKDSL_QUERY_ERROR', limit: 'FKDSL_MAX_COST', max: limit },
        });
        expect((body.errors![0] as Json).extensions.estimate).toBeGreaterThan(limit);
      }
      expect(barCalls).toBe(before);
    });

    it('refuses an out-of-range argument with a 4xx-class code naming it', async () => {
      const { body } = await graphql(t.app, EXECUTE, { q: 'EVALUATE AAPL: BOLLINGER_BANDS(20, -5)' });
      expect(body.errors?.[0]).toMatchObject({
        message: expect.stringContaining('deviations must be a number from 0.1 to 10'),
        extensions: { code: 'FKDSL_QUERY_ERROR', argument: 'deviations' },
      });
    });

    it('keeps answering other clients while the heaviest allowed query runs', async () => {
      const q = 'SCAN ALL WHERE VOLATILITY(150h) > 0';
      const limit = t.app.deps.config.fkDsl.maxCost;
      expect(cost(q)).toBeLessThanOrEqual(limit);
      expect(cost(q)).toBeGreaterThan(limit / 2);

      let finished = false;
      let ticks = 0;
      const timer = setInterval(() => ticks++, 5);
      const running = fetch(`${t.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: EXECUTE, variables: { q } }),
      }).then(async (response) => {
        const body = (await response.json()) as Json;
        finished = true;
        return body;
      });
      let answered = 0;
      while (!finished) {
        const health = await fetch(`${t.url}/healthz`);
        expect(health.status).toBe(200);
        await health.arrayBuffer();
        if (!finished) answered++;
      }
      clearInterval(timer);
      const body = await running;
      expect(body.errors).toBeUndefined();
      expect(body.data.executeFkDsl).toMatchObject({ errors: 0 });
      expect(body.data.executeFkDsl.statements[0].result.scanned).toBeGreaterThan(40);
      // Held in one piece, the loop would answer a probe or two at the very end at most.
      expect(answered).toBeGreaterThanOrEqual(5);
      expect(ticks).toBeGreaterThanOrEqual(5);
    });
  });

  describe('with a deadline too short for any query', () => {
    let t: TestApp;

    beforeAll(async () => {
      t = await createTestApp({ listen: true, env: { RATE_LIMIT_MAX: '1000', FKDSL_DEADLINE_MS: '1' } });
    });
    afterAll(async () => t?.close());

    const Q = 'EVALUATE AAPL: VOLATILITY(1y); SCAN US WHERE RSI > 0; EXPLAIN EVALUATE MSFT: PRICE';

    const expectDeadline = (statements: Json[]) => {
      expect(statements.slice(0, 2).map((s) => s.error)).toEqual([
        { code: 'FKDSL_DEADLINE_EXCEEDED', message: expect.stringContaining('FKDSL_DEADLINE_MS (1 ms)') },
        { code: 'FKDSL_DEADLINE_EXCEEDED', message: expect.stringContaining('FKDSL_DEADLINE_MS (1 ms)') },
      ]);
      // EXPLAIN fetches nothing, so it still answers.
      expect(statements[2]).toMatchObject({ kind: 'EXPLAIN', error: null });
    };

    it('stops a query run in the request, every unfinished statement reporting the deadline', async () => {
      const { body } = await graphql<{ executeFkDsl: Json }>(t.app, EXECUTE, { q: Q });
      expect(body.errors).toBeUndefined();
      expect(body.data!.executeFkDsl.errors).toBe(2);
      expectDeadline(body.data!.executeFkDsl.statements);
    });

    it('stops a query run as a background task the same way', async () => {
      // Other instruments than the request's: data its run left in the cache could beat 1 ms.
      const q =
        'EVALUATE BTC/USDT: VOLATILITY(1y); SCAN CRYPTO WHERE RSI > 0; EXPLAIN EVALUATE ETH/USDT: PRICE';
      const submitted = await graphql<{ submitFkDsl: Json }>(t.app, SUBMIT, { q });
      const { taskId } = submitted.body.data!.submitFkDsl;
      const task = await vi.waitFor(
        async () => {
          const { body } = await graphql<{ fkDslTask: Json }>(t.app, POLL, { id: taskId });
          expect(body.data!.fkDslTask.status).toBe('COMPLETED');
          return body.data!.fkDslTask;
        },
        { timeout: 20_000, interval: 100 },
      );
      expectDeadline(task.result.statements);
    });
  });

  describe('evaluation at the deadline', () => {
    const fake = createFakeProvider('fake', { capabilities: ['quote', 'bars'] });
    for (const [symbol, price] of [
      ['AAPL', 100],
      ['MSFT', 200],
    ] as const)
      fake.prices.set(symbol, price);
    const marketData = new MarketDataService([fake], systemClock, createLogger('silent'));
    const statements = parse(
      'EVALUATE AAPL: PRICE; EVALUATE MSFT: SMA(20); SCAN [AAPL, MSFT] WHERE PRICE > 0; EVALUATE AAPL: RSI',
    ).statements.map((s) => (s.kind === 'explain' ? s.statement : s));

    /** A deadline that passes at its `n`-th check: deterministic, unlike the clock. */
    const passingAt = (n: number) => {
      let checks = 0;
      return {
        check() {
          if (++checks >= n) throw new FkDslDeadlineError(5);
        },
        race: <T>(work: Promise<T>) => work,
      };
    };

    it('keeps finished statements and reports the deadline for the one running and every later one', async () => {
      // Checks: before each statement, and before each instrument of the SCAN.
      const settled = await evaluateStatements(statements, {
        marketData,
        clock: systemClock,
        universe: () => [],
        deadline: passingAt(4),
      });
      expect(settled.map((s) => s.ok)).toEqual([true, true, false, false]);
      for (const s of settled.slice(2))
        expect(s).toMatchObject({ ok: false, error: { code: 'FKDSL_DEADLINE_EXCEEDED' } });
    });

    it('stops waiting for data that does not come in time', async () => {
      let release: () => void = () => {};
      const stalled: MarketDataProvider = {
        ...fake,
        bars: () =>
          new Promise((resolve) => {
            release = () => resolve([]);
          }),
      };
      const slow = new MarketDataService([stalled], systemClock, createLogger('silent'));
      const settled = await evaluateStatements(statements, {
        marketData: slow,
        clock: systemClock,
        universe: () => [],
        deadline: new Deadline(20),
      });
      release();
      expect(settled).toHaveLength(4);
      for (const s of settled)
        expect(s).toMatchObject({ ok: false, error: { code: 'FKDSL_DEADLINE_EXCEEDED' } });
    });
  });
});
