import { type Client, createClient, fetchExchange, gql, subscriptionExchange } from '@urql/core';
import { cacheExchange } from '@urql/exchange-graphcache';
import { createClient as createSseClient } from 'graphql-sse';
import { createClient as createWsClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createTestApp, type TestApp } from '../support/app.ts';

/**
 * urql 6 with Graphcache (its normalised cache) against a listening server: entities are stored
 * by `__typename:id` with no `keys` configuration and no warning, and subscriptions arrive over
 * graphql-ws and over graphql-sse, in its distinct-connections and single-connection modes.
 */

const INSTANCES_VERSION = gql`
  query InstancesVersion {
    serverInfo {
      id
      liveInstances {
        id
        version
      }
    }
  }
`;
const INSTANCES_STARTED = gql`
  query InstancesStarted {
    serverInfo {
      id
      liveInstances {
        id
        startedAt
      }
    }
  }
`;
const INSTANCES_BOTH = gql`
  query InstancesBoth {
    serverInfo {
      id
      liveInstances {
        id
        version
        startedAt
      }
    }
  }
`;
const TIME = gql`
  subscription Time {
    time(intervalMs: 100)
  }
`;

interface Forwarder {
  subscribe(
    payload: { query: string; variables?: Record<string, unknown>; extensions?: Record<string, unknown> },
    sink: { next(value: unknown): void; error(error: unknown): void; complete(): void },
  ): () => void;
}

function urqlClient(url: string, options: { forward?: Forwarder; warnings?: string[]; requests?: string[] }) {
  const { forward, warnings, requests } = options;
  return createClient({
    url,
    // urql sends queries as GET: a GET needs a header a browser would preflight (CSRF protection).
    fetchOptions: { headers: { 'x-graphql-csrf': '1' } },
    fetch: async (input, init) => {
      requests?.push(String(input));
      return fetch(input, init);
    },
    exchanges: [
      cacheExchange({
        // Cache misses are debug lines; a warning would say an entity could not be keyed.
        logger: (severity, message) => {
          if (severity !== 'debug') warnings?.push(`${severity}: ${message}`);
        },
      }),
      ...(forward
        ? [
            subscriptionExchange({
              forwardSubscription: (request) => ({
                subscribe: (sink) => ({
                  unsubscribe: forward.subscribe({ ...request, query: request.query ?? '' }, sink),
                }),
              }),
            }),
          ]
        : []),
      fetchExchange,
    ],
  });
}

/** The first `count` results of a subscription, then unsubscribes. */
function take(client: Client, count: number): Promise<Array<{ data?: { time: string }; error?: unknown }>> {
  return new Promise((resolve) => {
    const results: Array<{ data?: { time: string }; error?: unknown }> = [];
    const { unsubscribe } = client.subscription<{ time: string }>(TIME, {}).subscribe((result) => {
      results.push(result);
      if (results.length === count || result.error) {
        queueMicrotask(() => unsubscribe());
        resolve(results);
      }
    });
  });
}

function expectTimes(results: Array<{ data?: { time: string }; error?: unknown }>) {
  expect(results.map((r) => r.error)).toEqual([undefined, undefined, undefined]);
  expect(results.every((r) => Number.isFinite(Date.parse(r.data!.time)))).toBe(true);
}

describe('urql with Graphcache', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ listen: true });
  });
  afterAll(async () => t?.close());

  it('normalises entities by __typename and id without configuration', async () => {
    const warnings: string[] = [];
    const requests: string[] = [];
    const client = urqlClient(`${t.url}/graphql`, { warnings, requests });
    const first = await client.query(INSTANCES_VERSION, {}).toPromise();
    expect(first.error).toBeUndefined();
    const [instance] = first.data.serverInfo.liveInstances;
    await client.query(INSTANCES_STARTED, {}).toPromise();
    expect(requests).toHaveLength(2);

    // Both queries wrote to one ServiceInstance record: a third shape is answered by the cache alone.
    const cached = await client.query(INSTANCES_BOTH, {}, { requestPolicy: 'cache-only' }).toPromise();
    const merged = cached.data?.serverInfo.liveInstances[0];
    expect(merged).toEqual({ id: instance.id, version: expect.any(String), startedAt: expect.any(String) });
    expect(requests).toHaveLength(2);
    expect(warnings).toEqual([]);
  });

  it('receives a subscription over graphql-ws', async () => {
    const ws = createWsClient({ url: `${t.wsUrl}/graphql`, webSocketImpl: WebSocket, retryAttempts: 0 });
    try {
      expectTimes(await take(urqlClient(`${t.url}/graphql`, { forward: ws }), 3));
    } finally {
      await ws.dispose();
    }
  });

  for (const singleConnection of [false, true]) {
    it(`receives a subscription over graphql-sse (${singleConnection ? 'single connection' : 'distinct connections'})`, async () => {
      const sse = createSseClient({ url: `${t.url}/graphql/stream`, singleConnection, retryAttempts: 0 });
      try {
        expectTimes(await take(urqlClient(`${t.url}/graphql`, { forward: sse }), 3));
      } finally {
        sse.dispose();
      }
    });
  }
});
