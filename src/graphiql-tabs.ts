import type { GraphiqlTab } from './platform/graphql/graphiql.ts';

/**
 * The example operations GraphiQL opens with, one per tab (the operation's name titles it). They
 * span the domains, so they live beside the schema assembly; a test validates them against the
 * schema, so a renamed field fails there rather than in a newcomer's browser.
 */
export const GRAPHIQL_TABS: readonly GraphiqlTab[] = [
  {
    // Inline arguments: GraphiQL loads the first tab's variables into its editor only on a switch back.
    query: `# Vigil's GraphQL API. Run this tab with the run
# button (or Ctrl-Enter); the other tabs hold more examples.
# Docs (first icon on the left) describes every field.
# Where the server requires API keys, put yours in Headers.
query Quote {
  quote(symbol: "AAPL") {
    requested
    instrument {
      id
      symbol
      name
      assetClass
    }
    quote {
      price
      currency
      change
      changePercent
      marketState
      asOf
    }
    lineage {
      used
      simulated
      cacheHit
    }
  }
}
`,
  },
  {
    query: `# FK-DSL: metrics of several instruments in one query
# (fkDslMetrics lists every metric).
query FkDsl($query: String!) {
  executeFkDsl(query: $query) {
    elapsedMs
    statements {
      statement
      kind
      error {
        code
        message
      }
      result {
        ... on FkDslEvaluateResult {
          asset {
            symbol
            metrics {
              metric
              value
              unit
              components {
                name
                value
                unit
              }
            }
          }
        }
        ... on FkDslCorrelateResult {
          window
          pairs {
            a
            b
            correlation
            observations
          }
        }
      }
    }
  }
}
`,
    variables: {
      query:
        'EVALUATE AAPL: PRICE, VOLATILITY(30d), TECHNICAL(RSI, MACD); CORRELATE BTC/USDT, ETH/USDT PERIOD(90d)',
    },
  },
  {
    query: `# Live prices over graphql-ws: at most one update per
# symbol per intervalMs. The stop button ends it.
subscription Prices($symbols: [String!]!) {
  prices(symbols: $symbols, intervalMs: 1000) {
    symbol
    price
    changePercent
    currency
    asOf
    seq
  }
}
`,
    variables: { symbols: ['BTC/USDT', 'AAPL'] },
  },
  {
    query: `# Who the server takes you for: the API key sent in
# Headers (or anonymous when none is), and its scopes.
query Viewer {
  viewer {
    id
    name
    kind
    scopes
    expiresAt
  }
}
`,
  },
];
