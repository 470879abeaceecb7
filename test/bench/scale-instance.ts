/**
 * A Vigil instance for the scale benchmark (scale.bench.ts), run in a process of its own from a
 * bundle of the current sources (as `npm start` runs dist/): the app as main.ts composes it, on
 * the database its environment names (DATABASE_URL), listening on PORT, with one market-data
 * provider, `bench`, that reads every quote from the benchmark's counting upstream over HTTP
 * (SCALE_UPSTREAM_URL). The provider is injected because the real adapters pace themselves far
 * below 50 symbols a second (Binance 10 requests/s, Yahoo 2/s), which would measure their pacing
 * rather than how many instances call upstream. SIGTERM stops it gracefully; SIGKILL is the crash.
 */
import { buildApp } from '../../src/app.ts';
import { loadConfigOrExit } from '../../src/config.ts';
import { createDeps } from '../../src/deps.ts';
import type { MarketDataProvider } from '../../src/market-data/providers/provider.ts';
import { ProviderError, unknownSymbol } from '../../src/market-data/providers/provider-errors.ts';
import type { Quote } from '../../src/market-data/types.ts';
import { modules } from '../../src/modules.ts';
import { exitAfterStop } from '../../src/platform/lifecycle.ts';
import { createLogger } from '../../src/platform/observability/logger.ts';

/**
 * Crypto quotes from `upstream` (`GET /quote/<symbol>` -> `{ price, asOf }`), counted there; each
 * request names the instance (its port), so the upstream can tell who polls which symbol.
 */
function upstreamProvider(upstream: string, instance: string): MarketDataProvider {
  const id = 'bench';
  return {
    id,
    displayName: 'Scale benchmark upstream',
    live: true,
    capabilities: new Set(['quote']),
    assetClasses: new Set(['crypto']),
    supports: (capability, instrument) =>
      capability === 'quote' && (!instrument || instrument.assetClass === 'crypto'),
    async quote({ instrument, signal }): Promise<Quote> {
      const response = await fetch(`${upstream}/quote/${encodeURIComponent(instrument.symbol)}`, {
        signal,
        headers: { 'x-bench-instance': instance },
      });
      if (response.status === 404) throw unknownSymbol(id, instrument.symbol);
      if (!response.ok) throw new ProviderError(id, 'upstream', `upstream answered ${response.status}`);
      const { price, asOf } = (await response.json()) as { price: number; asOf: string };
      return {
        symbol: instrument.symbol,
        price,
        change: null,
        changePercent: null,
        previousClose: null,
        open: null,
        dayHigh: null,
        dayLow: null,
        volume: null,
        currency: instrument.quote ?? 'USDT',
        asOf: new Date(asOf),
      };
    },
  };
}

const config = loadConfigOrExit();
const logger = createLogger(config.logLevel);
const upstream = process.env.SCALE_UPSTREAM_URL;
if (!upstream) throw new Error('SCALE_UPSTREAM_URL is not set');
const app = buildApp(
  await createDeps(config, { logger, providers: [upstreamProvider(upstream, String(config.port))] }),
  modules,
);
exitAfterStop(logger, () => app.stop());
await app.start({ port: config.port, host: config.host });
