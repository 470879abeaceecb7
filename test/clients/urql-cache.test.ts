import { createClient, fetchExchange, gql } from '@urql/core';
import { cacheExchange } from '@urql/exchange-graphcache';
import { getIntrospectionQuery, type IntrospectionObjectType, type IntrospectionQuery } from 'graphql';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.ts';

/**
 * Graphcache configured the way the README tells client authors to: schema-aware, with a `keys`
 * map derived from the introspection result. Every market-data answer must then be stored without
 * a warning, and one instrument's quote must land on one record whichever query brought it.
 */

const QUOTE = gql`
  query Quote($symbol: String!) {
    quote(symbol: $symbol) {
      id
      symbol
      lineage { used simulated }
      quote { id symbol price asOf }
    }
  }
`;
const QUOTES = gql`
  query Quotes($symbols: [String!]!) {
    quotes(symbols: $symbols) {
      requested
      instrument { id symbol }
      lineage { used }
      error { code message }
      quote { id price currency }
    }
  }
`;
const INSTRUMENTS = gql`
  query Instruments($query: String!) {
    instruments(query: $query) {
      query
      instruments { id symbol name }
      lineage { used }
    }
  }
`;
const BARS = gql`
  query Bars($symbol: String!, $first: Int) {
    bars(symbol: $symbol, first: $first) {
      instrument { id symbol }
      totalCount
      edges { cursor node { time close } }
      nodes { time open high low close volume }
      pageInfo { endCursor hasNextPage }
      lineage { used }
    }
  }
`;
/** Fields `quote` and `quotes` each wrote to the Quote, read back together. */
const QUOTE_MERGED = gql`
  query QuoteMerged($symbol: String!) {
    quote(symbol: $symbol) {
      id
      quote { id symbol price asOf currency }
    }
  }
`;

const isObjectType = (t: IntrospectionQuery['__schema']['types'][number]): t is IntrospectionObjectType =>
  t.kind === 'OBJECT';

/** The README's derivation: every object type without an `id` is a value object, embedded in its parent. */
function valueObjectKeys(schema: IntrospectionQuery): Record<string, () => null> {
  return Object.fromEntries(
    schema.__schema.types
      .filter(isObjectType)
      .filter((t) => !t.name.startsWith('__') && !t.fields.some((f) => f.name === 'id'))
      .filter((t) => !['Query', 'Mutation', 'Subscription'].includes(t.name))
      .map((t) => [t.name, () => null]),
  );
}

describe('urql Graphcache with keys derived from introspection', () => {
  let t: TestApp;
  let schema: IntrospectionQuery;

  beforeAll(async () => {
    t = await createTestApp({ listen: true });
    const response = await fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: getIntrospectionQuery() }),
    });
    const body = (await response.json()) as { data: IntrospectionQuery };
    schema = body.data;
  });
  afterAll(async () => t?.close());

  it('stores quotes, searches and bars without warnings and keeps one Quote per instrument', async () => {
    const keys = valueObjectKeys(schema);
    expect(keys).toHaveProperty('Lineage');
    expect(keys).not.toHaveProperty('Quote');

    const warnings: string[] = [];
    const requests: string[] = [];
    // Graphcache falls back to console.warn when no logger takes its warnings.
    const consoleWarn = vi.spyOn(console, 'warn');
    const client = createClient({
      url: `${t.url}/graphql`,
      // urql sends queries as GET: a GET needs a header a browser would preflight (CSRF protection).
      fetchOptions: { headers: { 'x-graphql-csrf': '1' } },
      fetch: async (input, init) => {
        requests.push(String(input));
        return fetch(input, init);
      },
      exchanges: [
        cacheExchange({
          schema,
          keys,
          logger: (severity, message) => {
            if (severity !== 'debug') warnings.push(`${severity}: ${message}`);
          },
        }),
        fetchExchange,
      ],
    });

    try {
      const single = await client.query(QUOTE, { symbol: 'AAPL' }).toPromise();
      expect(single.error).toBeUndefined();
      const quoteId: string = single.data.quote.quote.id;
      expect(quoteId).toBe('equity:US:AAPL');
      expect(single.data.quote.lineage.simulated).toBe(true);

      const batch = await client.query(QUOTES, { symbols: ['AAPL', 'MSFT'] }).toPromise();
      expect(batch.error).toBeUndefined();
      expect(batch.data.quotes.map((r: { quote: { id: string } }) => r.quote.id)).toEqual([
        quoteId,
        'equity:US:MSFT',
      ]);

      const search = await client.query(INSTRUMENTS, { query: 'apple' }).toPromise();
      expect(search.error).toBeUndefined();
      expect(search.data.instruments.instruments.map((i: { symbol: string }) => i.symbol)).toContain('AAPL');

      const bars = await client.query(BARS, { symbol: 'AAPL', first: 5 }).toPromise();
      expect(bars.error).toBeUndefined();
      expect(bars.data.bars.nodes).toHaveLength(5);
      expect(bars.data.bars.edges).toHaveLength(5);
      expect(requests).toHaveLength(4);

      // `asOf` came only with `quote`, `currency` only with `quotes`: both on one record answer this
      // from the cache alone, and `price` is what `quotes` wrote last over it.
      const merged = await client
        .query(QUOTE_MERGED, { symbol: 'AAPL' }, { requestPolicy: 'cache-only' })
        .toPromise();
      expect(merged.data?.quote.quote).toEqual({
        id: quoteId,
        symbol: 'AAPL',
        price: batch.data.quotes[0].quote.price,
        asOf: single.data.quote.quote.asOf,
        currency: batch.data.quotes[0].quote.currency,
      });
      expect(requests).toHaveLength(4);

      expect(warnings).toEqual([]);
      expect(consoleWarn).not.toHaveBeenCalled();
    } finally {
      consoleWarn.mockRestore();
    }
  });
});
