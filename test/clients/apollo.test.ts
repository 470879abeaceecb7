import { createHash } from 'node:crypto';
import {
  ApolloClient,
  type ApolloLink,
  gql,
  HttpLink,
  InMemoryCache,
  type Observable,
  type TypedDocumentNode,
} from '@apollo/client';
import { PersistedQueryLink } from '@apollo/client/link/persisted-queries';
import { GraphQLWsLink } from '@apollo/client/link/subscriptions';
import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createTestApp, type TestApp } from '../support/app.ts';

/**
 * Apollo Client 4 against a listening server, as an application would use it: InMemoryCache
 * normalises entities by `__typename:id`, subscriptions arrive over HTTP multipart (HttpLink's own
 * transport) and over graphql-ws, and PersistedQueryLink speaks automatic persisted queries.
 */

interface Instances {
  serverInfo: { id: string; liveInstances: Array<{ id: string; version?: string; startedAt?: string }> };
}

const INSTANCES_VERSION: TypedDocumentNode<Instances> = gql`
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
const INSTANCES_STARTED: TypedDocumentNode<Instances> = gql`
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
const INSTANCES_BOTH: TypedDocumentNode<Instances> = gql`
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
const PROVIDERS: TypedDocumentNode<{ marketDataProviders: Array<{ id: string; displayName: string }> }> = gql`
  query Providers {
    marketDataProviders {
      id
      displayName
    }
  }
`;
const TIME: TypedDocumentNode<{ time: string }> = gql`
  subscription Time {
    time(intervalMs: 100)
  }
`;

/** The first `count` values an observable emits, then unsubscribes. */
function take<T>(observable: Observable<T>, count: number): Promise<T[]> {
  return new Promise((resolve, reject) => {
    const values: T[] = [];
    const subscription = observable.subscribe({
      next(value) {
        values.push(value);
        if (values.length === count) {
          subscription.unsubscribe();
          resolve(values);
        }
      },
      error: reject,
      complete: () => resolve(values),
    });
  });
}

/** fetch that records what each request sent and what it got back. */
function recordingFetch() {
  const calls: Array<{ body: Record<string, unknown>; status: number }> = [];
  const fetchFn: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as Record<string, unknown>) : {};
    calls.push({ body, status: response.status });
    return response;
  };
  return { calls, fetchFn };
}

describe('Apollo Client 4', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ listen: true });
  });
  afterAll(async () => t?.close());

  const httpClient = (link?: ApolloLink) =>
    new ApolloClient({
      cache: new InMemoryCache(),
      link: link ?? new HttpLink({ uri: `${t.url}/graphql` }),
    });

  it('runs a query and stores each entity once, by __typename and id', async () => {
    const client = httpClient();
    const first = await client.query({ query: INSTANCES_VERSION });
    const [instance] = first.data!.serverInfo.liveInstances;
    expect(instance).toMatchObject({ __typename: 'ServiceInstance', id: expect.any(String) });
    await client.query({ query: INSTANCES_STARTED });
    await client.query({ query: PROVIDERS });

    const cache = client.cache.extract() as Record<string, Record<string, unknown>>;
    // Two queries selected different fields of the same instance: one merged record.
    expect(cache[`ServiceInstance:${instance!.id}`]).toMatchObject({
      id: instance!.id,
      version: expect.any(String),
      startedAt: expect.any(String),
    });
    expect(Object.keys(cache).filter((key) => key.startsWith('ServiceInstance:'))).toHaveLength(
      first.data!.serverInfo.liveInstances.length,
    );
    expect(cache['MarketDataProvider:simulated']).toMatchObject({ displayName: expect.any(String) });
    // Any query over fields already fetched is answered from the cache alone.
    expect(client.readQuery({ query: INSTANCES_BOTH })?.serverInfo.liveInstances[0]).toMatchObject({
      id: instance!.id,
      version: expect.any(String),
      startedAt: expect.any(String),
    });
  });

  it('receives a subscription over HTTP multipart', async () => {
    const client = httpClient();
    const results = await take(client.subscribe({ query: TIME }), 3);
    expect(results).toHaveLength(3);
    for (const result of results) {
      expect(result.error).toBeUndefined();
      expect(Date.parse(result.data!.time)).not.toBeNaN();
    }
  });

  it('receives a subscription over graphql-ws', async () => {
    const wsClient = createClient({ url: `${t.wsUrl}/graphql`, webSocketImpl: WebSocket, retryAttempts: 0 });
    try {
      const client = new ApolloClient({ cache: new InMemoryCache(), link: new GraphQLWsLink(wsClient) });
      const results = await take(client.subscribe({ query: TIME }), 3);
      expect(results.map((r) => Date.parse(r.data!.time)).every(Number.isFinite)).toBe(true);
    } finally {
      await wsClient.dispose();
    }
  });

  it('sends a hash alone once the server knows the document (automatic persisted queries)', async () => {
    const { calls, fetchFn } = recordingFetch();
    const link = () =>
      new PersistedQueryLink({ sha256: (text) => createHash('sha256').update(text).digest('hex') }).concat(
        new HttpLink({ uri: `${t.url}/graphql`, fetch: fetchFn }),
      );
    const first = await httpClient(link()).query({ query: PROVIDERS });
    expect(first.data?.marketDataProviders[0]?.id).toBe('simulated');
    // A miss, then the document with its hash.
    expect(calls.map((c) => [c.status, 'query' in c.body])).toEqual([
      [404, false],
      [200, true],
    ]);
    calls.length = 0;
    const second = await httpClient(link()).query({ query: PROVIDERS });
    expect(second.data).toEqual(first.data);
    expect(calls.map((c) => [c.status, 'query' in c.body])).toEqual([[200, false]]);
  });
});
