import * as TI from 'technicalindicators';
import type { QueryStatement } from '../../src/fk-dsl/ast.ts';
import { evaluateStatements } from '../../src/fk-dsl/evaluator/evaluate.ts';
import { parse } from '../../src/fk-dsl/parser.ts';
import { MarketDataService } from '../../src/market-data/market-data.service.ts';
import { createSimulatedProvider } from '../../src/market-data/providers/simulated/simulated.provider.ts';
import { systemClock } from '../../src/platform/clock.ts';
import { createLogger } from '../../src/platform/observability/logger.ts';
import { summarize, table } from './stats.ts';

/**
 * FK-DSL costs. Parsing: typical statements, against JSON.parse of their AST (the cost of turning
 * text into the same tree with the platform's native parser). Evaluation: an EVALUATE of five
 * metrics on ten years of daily bars (simulated market, bars cached after the first run) against
 * computing the same five numbers directly with technicalindicators on the same closes.
 */
const STATEMENTS = [
  'EVALUATE AAPL: PRICE, VOLATILITY(30d), TECHNICAL(RSI, MACD, SMA(20))',
  'CORRELATE AAPL, MSFT, GOOGL PERIOD(90d)',
  'SCAN US WHERE RSI < 30 AND VOLUME > AVG_VOLUME(30d) * 2 AND PRICE ABOVE SMA(200) ORDER BY VOLATILITY(30d) DESC LIMIT 10',
  'MACRO: US10Y, CPI, VIX -> REGRESSION ON SPY WINDOW 5y',
];
const QUERY = 'EVALUATE SPY: VOLATILITY(10y), SMA(200), RSI, MACD, BOLLINGER_BANDS';

function timeIt(fn: () => unknown, rounds: number): number[] {
  for (let i = 0; i < Math.min(50, rounds); i++) fn();
  const out: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const t0 = performance.now();
    fn();
    out.push(performance.now() - t0);
  }
  return out;
}

async function timeAsync(fn: () => Promise<unknown>, rounds: number): Promise<number[]> {
  for (let i = 0; i < 3; i++) await fn();
  const out: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const t0 = performance.now();
    await fn();
    out.push(performance.now() - t0);
  }
  return out;
}

export async function run(): Promise<void> {
  const rows: Array<Record<string, string | number>> = [];
  for (const text of STATEMENTS) {
    const json = JSON.stringify(parse(text));
    const dsl = summarize(timeIt(() => parse(text), 2_000));
    const baseline = summarize(timeIt(() => JSON.parse(json), 2_000));
    rows.push({
      work: `parse: ${text.slice(0, 48)}...`,
      'p50 µs': dsl.p50 * 1000,
      'p99 µs': dsl.p99 * 1000,
      'baseline p50 µs': baseline.p50 * 1000,
      ratio: dsl.p50 / baseline.p50,
    });
  }

  const provider = createSimulatedProvider({
    seed: 'bench',
    activity: 'normal',
    tickMs: 1000,
    clock: systemClock,
  });
  const marketData = new MarketDataService([provider], systemClock, createLogger('silent'));
  const statements = parse(QUERY).statements as QueryStatement[];
  const ctx = { marketData, clock: systemClock, universe: () => [] };
  const first = performance.now();
  await evaluateStatements(statements, ctx);
  const coldMs = performance.now() - first;
  const evaluation = summarize(await timeAsync(() => evaluateStatements(statements, ctx), 50));

  const now = systemClock.now();
  const spy = { symbol: 'SPY', assetClass: 'equity', market: 'US' } as const;
  const closes = (await marketData.bars(spy, '1d', new Date(now.getTime() - 3_700 * 86_400_000), now)).value
    .map((b) => b.close)
    .slice(-2_521);
  const direct = summarize(
    timeIt(() => {
      const r: number[] = [];
      for (let i = 1; i < closes.length; i++) r.push(Math.log(closes[i]! / closes[i - 1]!));
      const m = r.reduce((s, x) => s + x, 0) / r.length;
      Math.sqrt(r.reduce((s, x) => s + (x - m) ** 2, 0) / (r.length - 1));
      TI.SMA.calculate({ period: 200, values: closes });
      TI.RSI.calculate({ period: 14, values: closes });
      TI.MACD.calculate({
        values: closes,
        fastPeriod: 12,
        slowPeriod: 26,
        signalPeriod: 9,
        SimpleMAOscillator: false,
        SimpleMASignal: false,
      });
      TI.BollingerBands.calculate({ period: 20, values: closes, stdDev: 2 });
    }, 200),
  );
  rows.push({
    work: `evaluate (warm cache): ${QUERY}`,
    'p50 µs': evaluation.p50 * 1000,
    'p99 µs': evaluation.p99 * 1000,
    'baseline p50 µs': direct.p50 * 1000,
    ratio: evaluation.p50 / direct.p50,
  });
  process.stdout.write(`${table(rows)}\n`);
  process.stdout.write(
    `first (cold) evaluation including generating ten years of bars: ${coldMs.toFixed(1)} ms\n`,
  );
  process.stdout.write(
    'baseline: parse = JSON.parse of the same AST; evaluate = the same five numbers with technicalindicators\n',
  );
  await provider.close?.();
}
