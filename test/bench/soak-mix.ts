/**
 * The soak benchmark's request mix: what a busy day of careful and careless clients sends. Each
 * request is a plain description (method, path, body) chosen deterministically from its index, so
 * two runs send the same load. The heaviest FK-DSL query the service accepts is found at run time.
 */
export interface MixRequest {
  readonly kind: string;
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly body?: string;
  readonly contentType?: string;
  /** GraphQL answers errors in a 200 body: look inside to classify it. */
  readonly graphql?: boolean;
}

const STOCKS = ['AAPL', 'MSFT', 'NVDA', 'GOOGL', 'AMZN', 'JPM', 'XOM', 'TSLA', 'SPY', 'QQQ'];
const COINS = ['BTC', 'ETH', 'SOL', 'XRP'];
const DEPTHS = ['quick', 'standard', 'deep'] as const;

const gql = (kind: string, query: string, variables: Record<string, unknown> = {}): MixRequest => ({
  kind,
  method: 'POST',
  path: '/graphql',
  body: JSON.stringify({ query, variables }),
  graphql: true,
});
const tool = (kind: string, name: string, args: Record<string, unknown>): MixRequest => ({
  kind,
  method: 'POST',
  path: `/mcp/tools/${name}`,
  body: JSON.stringify(args),
});
const mcpCall = (kind: string, name: string, args: Record<string, unknown>): MixRequest => ({
  kind,
  method: 'POST',
  path: '/mcp/tools/call',
  body: JSON.stringify({ name, arguments: args }),
});

const QUOTE =
  'query Q($s: String!) { quote(symbol: $s) { symbol quote { price asOf } lineage { asked cacheHit } } }';
const SEARCH = `query S($s: String!, $d: SearchDepth) {
  searchBySymbol(symbol: $s, depth: $d) { symbol name quote { price } technicals { rsi14 } history { close } warnings }
}`;
const COIN =
  'query C($s: String!, $d: SearchDepth) { searchByCoin(symbol: $s, depth: $d) { symbol quote { price } } }';
const FKDSL = 'query F($q: String!) { executeFkDsl(query: $q) { status errors elapsedMs } }';

/** Weighted kinds; a request's kind is picked by its index modulo the total weight. */
const KINDS: ReadonlyArray<readonly [number, (i: number) => MixRequest]> = [
  [18, (i) => gql('graphql quote', QUOTE, { s: STOCKS[i % STOCKS.length] })],
  [
    14,
    (i) =>
      gql(`graphql searchBySymbol ${DEPTHS[i % 3]}`, SEARCH, {
        s: STOCKS[(i >> 2) % STOCKS.length],
        d: DEPTHS[i % 3]!.toUpperCase(),
      }),
  ],
  [
    4,
    (i) => gql('graphql searchByCoin', COIN, { s: COINS[i % COINS.length], d: DEPTHS[i % 3]!.toUpperCase() }),
  ],
  [
    10,
    (i) =>
      gql('fk-dsl EVALUATE', FKDSL, {
        q: `EVALUATE ${STOCKS[i % STOCKS.length]}: PRICE, VOLATILITY(30d), TECHNICAL(RSI, MACD)`,
      }),
  ],
  [4, (i) => gql('fk-dsl SCAN', FKDSL, { q: `SCAN US WHERE VOLATILITY(${20 + (i % 40)}d) > 25 LIMIT 5` })],
  [
    10,
    (i) => tool('rest tool route', 'search-by-symbol', { symbol: STOCKS[i % STOCKS.length], depth: 'quick' }),
  ],
  [
    10,
    (i) =>
      i % 2
        ? mcpCall('mcp tool call', 'search-by-coin', { symbol: COINS[i % COINS.length], depth: 'standard' })
        : mcpCall('mcp tool call', 'execute-fk-dsl', {
            query: `EVALUATE ${STOCKS[i % STOCKS.length]}: CHANGE, PRICE_CHANGE(5d)`,
          }),
  ],
  [
    1,
    (i) =>
      mcpCall('mcp async task', 'execute-fk-dsl', {
        query: `EVALUATE SPY: PRICE_CHANGE(${1 + (i % 90)}d)`,
        async: true,
      }),
  ],
  [
    3,
    () => ({
      kind: 'invalid: bad JSON',
      method: 'POST',
      path: '/graphql',
      body: '{"query": "{ serverInfo {',
      graphql: true,
    }),
  ],
  [3, (i) => gql('invalid: unknown symbol', QUOTE, { s: `NOSUCH${i % 97}` })],
  [3, (i) => gql('invalid: FK-DSL syntax', FKDSL, { q: `EVALUATE AAPL: PRICE((${i}` })],
  [2, () => gql('invalid: GraphQL syntax', '{ quote(symbol: "AAPL") { symbol ')],
  [2, (i) => tool('invalid: tool arguments', 'search-by-symbol', { symbol: i, depth: 'bottomless' })],
  [2, () => ({ kind: 'invalid: bad JSON', method: 'POST', path: '/mcp/tools/call', body: '{"name": ' })],
  [2, () => mcpCall('invalid: unknown tool', 'no-such-tool', {})],
];
const TOTAL_WEIGHT = KINDS.reduce((sum, [w]) => sum + w, 0);
const SLOTS = KINDS.flatMap(([weight, make]) => Array.from({ length: weight }, () => make));

/** Every `heavyEvery`-th request (0: none) is the heaviest query allowed; the rest follow the weights. */
export function mixRequest(index: number, heavy: (i: number) => MixRequest, heavyEvery: number): MixRequest {
  if (heavyEvery > 0 && index % heavyEvery === heavyEvery - 1) return heavy(index);
  // A stride coprime with the total spreads kinds evenly instead of in runs.
  return SLOTS[(index * 7) % TOTAL_WEIGHT]!(index);
}

export function heavyRequest(query: string): MixRequest {
  return gql('fk-dsl heaviest allowed', FKDSL, { q: query });
}

/**
 * The heaviest query of a family the service accepts: the largest N for which `compile` (parse,
 * limits and the cost estimate) does not refuse `template(N)` for its cost. Only the cost refusal
 * counts: a window too long to plan is accepted by the estimate and fails cheaply when it runs.
 * Undefined when no N up to `max` is refused (no cost limit: the caller falls back to a fixed query).
 */
export function heaviestAllowed(
  compile: (query: string) => unknown,
  template: (n: number) => string,
  min: number,
  max: number,
): number | undefined {
  const refused = (n: number) => {
    try {
      compile(template(n));
      return false;
    } catch (error) {
      return String((error as Error).message).includes('FKDSL_MAX_COST');
    }
  };
  let hi = min;
  while (!refused(hi)) {
    if (hi >= max) return undefined;
    hi = Math.min(max, hi * 2);
  }
  let lo = Math.max(min, Math.floor(hi / 2));
  if (refused(lo)) return undefined;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (refused(mid)) hi = mid;
    else lo = mid;
  }
  return lo;
}
