import type { AppDeps } from './deps.ts';
import { GRAPHQL_PATH } from './platform/graphql/yoga.ts';
import { isLoopbackAddress } from './platform/mcp/mcp-guard.ts';

/** What a started server logs: where it listens, and what an operator must not miss (open access, simulated data). */
export function logStart(deps: AppDeps, url: string, host: string): void {
  const { logger, config } = deps;
  logger.info(
    { url, graphql: `${url}${GRAPHQL_PATH}`, database: deps.database.mode, version: deps.serverInfo.version },
    'vigil is listening',
  );
  if (!config.auth.required && !isLoopbackAddress(host)) {
    logger.warn(
      { host },
      'AUTH_REQUIRED is off and Vigil listens beyond loopback: anyone who reaches the port can do anything (set AUTH_REQUIRED=true and ADMIN_API_KEY)',
    );
  }
  const providers = deps.marketData.providersInfo();
  const live = providers.filter((p) => p.live).map((p) => p.id);
  const simulated = providers.filter((p) => !p.live).map((p) => p.id);
  logger.info(
    { live, simulated },
    live.length ? `live market data from ${live.join(', ')}` : 'no live provider configured',
  );
  if (simulated.length) {
    logger.warn(
      { providers: simulated },
      'serving SIMULATED market data: prices, events and history are generated, not real (set MARKET_DATA_PROVIDERS for live data)',
    );
  }
}
